/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif's use of the SIGBUS guard (ports/guard.h): a fault in a peer's
 * region marks its connection broken, and the control thread ends it at
 * its next look, as for any broken ring. Sealing keeps a region's file as
 * long as claimed, not every page backed (a hole punched in a hugetlbfs
 * file, a full tmpfs): the guard is for that.
 */
#include "ports/guard.h"
#include "ports/memif/port.h"

static void memif_fault(void *owner)
{
	memif_conn_mark_broken(owner, "its shared memory lost pages under podwired (SIGBUS)");
}

int memif_guard_init(void)
{
	return guard_init() == 0 ? 0 : -1;
}

int memif_guard_add(void *base, size_t len, struct memif_conn *c)
{
	return guard_add(base, len, memif_fault, c) == 0 ? 0 : -1;
}

void memif_guard_del(void *base)
{
	guard_del(base);
}
