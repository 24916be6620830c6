/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The option strings operators write: --physnets (physnet:PF[#a-b],...),
 * --worker-cores lists, uplink interface names and PCI addresses, MACs,
 * socket paths, names, log levels. The input is one option's value,
 * chosen by its first byte, passed on podwired's command line or given to
 * the validator the API uses.
 */
#include "fuzz.h"

#include "core/config.h"
#include "daemon/daemon.h"
#include "core/log.h"
#include "sriov/vf_pool.h"
#include "validate.h"

static const char *const options[] = {"--physnets",	 "--worker-cores", "--main-core",
				      "--log-level",	 "--socket",	   "--state-dir",
				      "--mac-table-size"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vf_physnet nets[8];
	struct pw_config cfg;
	uint8_t mac[6];
	char bdf[16];
	char msg[512], *s;
	unsigned int n;
	uint32_t level;

	if (size < 1)
		return 0;
	s = fuzz_str(data + 1, size - 1);
	switch (data[0] % 6) {
	case 0: {
		char *argv[] = {"podwired", (char *)options[(data[0] / 6) % 7], s, NULL};

		options_parse(3, argv, &cfg);
		break;
	}
	case 1:
		vf_pool_parse(s, nets, 8, &n, msg, sizeof(msg));
		break;
	case 2:
		validate_mac("fuzz", s, mac, msg, sizeof(msg));
		validate_name("fuzz", s, msg, sizeof(msg));
		break;
	case 3:
		validate_pci_addr("fuzz", s, bdf, msg, sizeof(msg));
		break;
	case 4:
		validate_socket_path_shape("fuzz", s, msg, sizeof(msg));
		validate_ifname("fuzz", s, msg, sizeof(msg));
		break;
	default:
		pw_log_level_parse(s, &level);
		break;
	}
	free(s);
	return 0;
}
