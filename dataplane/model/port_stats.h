/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's counters the workers do not keep: those its kind reads from
 * the kernel (stats_api.c). As the workers' (datapath/stats.h), they count
 * from when the port was made or stats.clear last cleared them.
 */
#ifndef PODWIRE_MODEL_PORT_STATS_H
#define PODWIRE_MODEL_PORT_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/port.h"

/* Frames the kernel dropped on their way to podwired (port_ops.
 * kernel_drops) into *out; false when p's kind reads through no kernel
 * socket (nothing to count). Control thread, or ctl_lock held. */
bool port_kernel_drops(struct port *p, uint64_t *out);

#endif
