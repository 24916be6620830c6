/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "daemon/log.h"

#define PW_LOG_DEF(m)                                                                              \
	int pw_logtype_##m;                                                                        \
	RTE_LOG_REGISTER_DEFAULT_NAMED(m)

#define RTE_LOG_REGISTER_DEFAULT_NAMED(m)                                                          \
	RTE_INIT(pw_log_init_##m)                                                                  \
	{                                                                                          \
		pw_logtype_##m =                                                                   \
		    rte_log_register_type_and_pick_level("podwire." #m, RTE_LOG_INFO);             \
		if (pw_logtype_##m < 0)                                                            \
			pw_logtype_##m = RTE_LOGTYPE_USER1;                                        \
	}

PW_LOG_MODULES(PW_LOG_DEF)

int pw_log_set_level(const char *level)
{
	static const struct {
		const char *name;
		uint32_t level;
	} levels[] = {
	    {"emerg", RTE_LOG_EMERG}, {"alert", RTE_LOG_ALERT},	    {"crit", RTE_LOG_CRIT},
	    {"error", RTE_LOG_ERR},   {"warning", RTE_LOG_WARNING}, {"notice", RTE_LOG_NOTICE},
	    {"info", RTE_LOG_INFO},   {"debug", RTE_LOG_DEBUG},
	};

	for (size_t i = 0; i < RTE_DIM(levels); i++)
		if (strcmp(levels[i].name, level) == 0)
			return rte_log_set_level_pattern("podwire.*", levels[i].level);
	return -EINVAL;
}
