/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rate limits per port and direction: a policer (bucket.h) on what a
 * port's pod sends (an ingress stage, first of the policy stages) and on
 * what podwired sends to it (an egress stage); frames over the limit are
 * dropped and counted as "policed" on the port. The settings are the
 * port's (model/port_conf.h: port.create, state.json); policer.set and
 * policer.del change them live (policer_api.c).
 */
#ifndef PODWIRE_POLICER_POLICER_H
#define PODWIRE_POLICER_POLICER_H

#include <stdint.h>

#include "model/port.h"
#include "policer/bucket.h"

/*
 * Makes p's policers what rate[] says (rate 0: none): new ones are built
 * beside the old, published, and the old freed once no worker can see
 * them (view_wait); a direction whose setting is unchanged keeps its
 * bucket. On -ENOMEM (msg says so) nothing changed. Does not touch
 * p->conf. Control thread.
 */
int policer_apply(struct port *p, const struct port_rate rate[PORT_DIRS], char *msg, size_t len);

/* The policer of p in direction d as workers use it, NULL when none;
 * for what shows settings and counters (control thread). */
const struct policer *policer_of(const struct port *p, enum port_dir d);

#endif
