/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGBUS from a pod's memory, for every port kind that maps it (memif,
 * vhost-user). A pod can take pages away from under podwired: shrink a
 * file that takes no seals, punch a hole in a hugetlbfs file when the
 * pool is empty, fill the tmpfs it lives on; the next access by podwired
 * (a worker's burst, librte_vhost's thread reading a ring) faults with
 * SIGBUS, which would end the process and every pod's network with it.
 *
 * So every mapping of a pod's memory is registered here while it is
 * mapped. A SIGBUS inside one replaces the whole mapping with anonymous
 * zeroed memory at the same address (the faulting access then completes
 * on it, and whoever unmaps it later unmaps that) and calls its owner's
 * fault function, which marks the connection broken; the owner's control
 * path ends it. A SIGBUS anywhere else goes to the handler that was there
 * before (EAL's, while it grows its heap) or is fatal as always.
 */
#ifndef PODWIRE_PORTS_GUARD_H
#define PODWIRE_PORTS_GUARD_H

#include <stddef.h>

/* Called from the signal handler, on whichever thread faulted: must be
 * async-signal-safe (atomic stores, no locks, no malloc, no logging). */
typedef void (*guard_fault_fn)(void *owner);

/* Installs the handler (once; again if someone replaced it). 0 or -errno.
 * Control thread, or any thread that adds mappings. */
int guard_init(void);
/* Registers [base, base + len) for owner. A slot left over for a range
 * that overlaps it (its mapping is gone, or this one could not be at the
 * same address) is dropped. 0, or -ENOSPC when every slot is taken. */
int guard_add(void *base, size_t len, guard_fault_fn fault, void *owner);
/* Forgets the mapping at base; before it is unmapped. */
void guard_del(void *base);
/* Forgets every mapping of owner; before they are unmapped. */
void guard_del_owner(const void *owner);

#endif
