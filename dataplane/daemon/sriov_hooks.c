/* SPDX-License-Identifier: BSD-3-Clause */
/* What sriov/ (DPDK-free) gets from the daemon: a log, and which port
 * uses a PCI address. */
#include "daemon/daemon.h"
#include "core/log.h"
#include "model/port.h"
#include "sriov/vf_api.h"
#include "sriov/vf_pool.h"

PW_LOG_TYPE("sriov");

static void sriov_log(int level, const char *text)
{
	if (level == 0)
		LOG(WARNING, "%s", text);
	else
		LOG(NOTICE, "%s", text);
}

static const char *user_of(const char *pci)
{
	const struct port *p = port_by_pci(pci);

	return p != NULL ? p->conf.name : NULL;
}

void sriov_hooks_install(void)
{
	vf_pool_set_log(sriov_log);
	vf_api_set_user_lookup(user_of);
}
