/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON forms of model objects, shared by the API handlers. */
#ifndef PODWIRE_MODEL_JSON_H
#define PODWIRE_MODEL_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "model/port.h"

/* A port: its configuration (no secret), link, worker, the kind's fields
 * and, with_stats, its counters. */
cJSON *port_json(const struct port *p, bool with_stats);
/* A port's counters: rx/tx packets and bytes, drops by reason. */
cJSON *port_stats_json(const struct port *p);
/* Per worker: lcore and cycles, and with_ports the ports it polls. */
cJSON *workers_json(bool with_ports);

#endif
