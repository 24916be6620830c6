/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging through rte_log, one log type per module, registered by the
 * module where it lives: a file that logs says once, at file scope,
 *
 *     PW_LOG_TYPE("vhost");
 *
 * and then LOG(INFO, "fmt", ...) or, about a port, PORT_LOG(p, INFO, ...)
 * which prefixes `port "NAME": `. Files of one module name the same type;
 * DPDK hands them one id ("podwire.vhost"), so `--log-level` and
 * rte_log_set_level_pattern("podwire.*") reach them all.
 */
#ifndef PODWIRE_CORE_LOG_H
#define PODWIRE_CORE_LOG_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>

#define PW_LOG_TYPE(module)                                                                        \
	static int pw_log_type = RTE_LOGTYPE_USER1;                                                \
	static const char pw_log_name[] = "podwire." module;                                       \
	RTE_INIT(pw_log_type_register)                                                             \
	{                                                                                          \
		int t = rte_log_register_type_and_pick_level(pw_log_name, RTE_LOG_INFO);           \
		if (t >= 0)                                                                        \
			pw_log_type = t;                                                           \
	}

#define LOG(level, fmt, ...)                                                                       \
	rte_log(RTE_LOG_##level, pw_log_type, "%s: " fmt "\n", pw_log_name, ##__VA_ARGS__)

/* p is a struct port (model/port.h). */
#define PORT_LOG(p, level, fmt, ...) LOG(level, "port \"%s\": " fmt, (p)->conf.name, ##__VA_ARGS__)

/* The rte_log level of a name ("error", "warning", "notice", "info",
 * "debug", ...), or -EINVAL. Needs no EAL: options check it at once. */
int pw_log_level_parse(const char *name, uint32_t *level);
/* Sets every podwire.* type to level; -EINVAL for an unknown name. */
int pw_log_set_level(const char *name);

#endif
