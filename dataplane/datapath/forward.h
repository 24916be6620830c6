/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The L2 bridge's state: the MAC table of every bridge network and its
 * clock. Its decision is a stage of the chain (datapath/burst.h).
 */
#ifndef PODWIRE_DATAPATH_FORWARD_H
#define PODWIRE_DATAPATH_FORWARD_H

#include <stdint.h>

#include "datapath/mac_table.h"

/* The MAC table of every bridge network, and the coarse clock (seconds)
 * its entries are stamped with, advanced by the control thread. */
extern struct mac_table *l2_macs;
extern volatile uint32_t l2_clock;

int l2_bridge_init(uint32_t mac_capacity);
void l2_bridge_fini(void);

#endif
