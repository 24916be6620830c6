/* SPDX-License-Identifier: BSD-3-Clause */
/* The model's side of the view: what workers should see, built from the
 * registries of networks and ports. Control thread. */
#ifndef PODWIRE_MODEL_PUBLISH_H
#define PODWIRE_MODEL_PUBLISH_H

#include "datapath/view.h"
#include "model/port.h"

/* A view of every network and port, leaving out skip (may be NULL).
 * NULL when memory is short; nothing is published. */
struct view *model_view_build(const struct port *skip);

/* For tests: make the next view builds fail, as when memory is short.
 * n builds fail, then they work again. */
void model_view_fail_next(unsigned int n);

#endif
