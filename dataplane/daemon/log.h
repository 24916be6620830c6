/* SPDX-License-Identifier: BSD-3-Clause */
/* One rte_log type per module: podwire.main, podwire.l2, podwire.vhost, ... */
#ifndef PODWIRE_LOG_H
#define PODWIRE_LOG_H

#include <rte_log.h>

#define PW_LOG_MODULES(X)                                                                          \
	X(main) X(api) X(state) X(l2) X(vhost) X(memif) X(worker) X(uplink) X(sriov)

#define PW_LOG_DECL(m) extern int pw_logtype_##m;
PW_LOG_MODULES(PW_LOG_DECL)
#undef PW_LOG_DECL

#define PW_LOG(level, mod, fmt, ...)                                                               \
	rte_log(RTE_LOG_##level, pw_logtype_##mod, "podwire." #mod ": " fmt "\n", ##__VA_ARGS__)

/* Sets every podwire.* type to level ("debug", "info", "warning", ...);
 * returns -EINVAL for an unknown level. */
int pw_log_set_level(const char *level);

#endif
