/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VF pool file (vfs.json) as podwired reads it at start-up, against a
 * fake sysfs tree of two PFs (tests/sriov/fake_kernel.c, its PCI core run
 * in process) whose pools are configured afresh every 64 inputs.
 */
#include <sys/stat.h>

#include <rte_log.h>

#include "fuzz.h"

#include "../sriov/fake_kernel.h"
#include "sriov/sriov.h"
#include "sriov/vf_pool.h"

static char root[128], state[128];
static unsigned long runs;

static int hook(const char *path, const char *value)
{
	return fk_write(root, path, value);
}

static int no_config(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg, size_t len)
{
	(void)vf, (void)c;
	snprintf(msg, len, "PF %s has no kernel netdev", pf);
	return -19; /* -ENODEV */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[1024], path[160];
	FILE *f;

	if (root[0] == '\0') {
		struct fk_opts o = {0};

		snprintf(root, sizeof(root), "%s/sys", fuzz_dir());
		snprintf(state, sizeof(state), "%s/state", fuzz_dir());
		mkdir(root, 0755);
		mkdir(state, 0700);
		if (fk_create(root, &o) != 0)
			abort();
		sriov_set_root(root);
		sriov_set_write_hook(hook);
		sriov_set_timeout_ms(10);
		vf_pool_set_config_fn(no_config);
		/* Its warnings about each bad record would drown the fuzzer's. */
		rte_log_set_level_pattern("podwire.sriov", RTE_LOG_ERR);
	}
	/* Afresh every few inputs only: discovery reads the whole tree, and
	 * allocations an input restored make the next one meet taken VFs. */
	if (runs++ % 64 == 0 &&
	    vf_pool_configure("physnet2:enp1s0f0,physnet3:enp1s0f1#0-1", msg, sizeof(msg)) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/vfs.json", state);
	f = fopen(path, "w");
	if (f == NULL || fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	vf_pool_restore(state);
	return 0;
}
