/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "core/log.h"

int pw_log_level_parse(const char *name, uint32_t *level)
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
		if (strcmp(levels[i].name, name) == 0) {
			*level = levels[i].level;
			return 0;
		}
	return -EINVAL;
}

int pw_log_set_level(const char *name)
{
	uint32_t level;

	if (pw_log_level_parse(name, &level) != 0)
		return -EINVAL;
	return rte_log_set_level_pattern("podwire.*", level);
}
