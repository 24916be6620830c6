/* SPDX-License-Identifier: BSD-3-Clause */
/* The "ports" module (core/module.h): the kinds' settings from podwired's,
 * made before the model restores the first port. The kinds themselves
 * register from constructors (PORT_KIND) and start their threads with
 * their first port. */
#include <stdint.h>

#include "core/config.h"
#include "core/module.h"
#include "ports/memif/config.h"

static int ports_init(void)
{
	memif_cfg.backoff_max_ms = pw_cfg.memif_backoff_max_ms;
	memif_cfg.peer_max_bytes = (uint64_t)pw_cfg.memif_peer_memory_mb << 20;
	memif_cfg.total_max_bytes = (uint64_t)pw_cfg.memif_total_memory_mb << 20;
	return 0;
}

PW_MODULE(ports, ports_init, NULL);
