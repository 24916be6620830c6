/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's own limits on a memif peer, beyond what the protocol allows
 * (memif/memif.h): how much of podwired's memory peers may map, and how
 * long a port waits after connections that end too soon. Pure functions,
 * for ctl.c and the unit tests.
 */
#include <errno.h>
#include <stdio.h>

#include "ports/memif/port.h"

unsigned int memif_flap_backoff_ms(unsigned int n, unsigned int min_ms, unsigned int max_ms)
{
	uint64_t ms = min_ms;

	/* Doubling stops at the cap: no shift past the width. */
	for (unsigned int i = 1; i < n && ms != 0 && ms < max_ms; i++)
		ms *= 2;
	return n == 0 ? 0 : (unsigned int)(ms < max_ms ? ms : max_ms);
}

int memif_check_memory(uint16_t index, uint64_t bytes, uint64_t peer_mapped, uint64_t peer_max,
		       uint64_t all_mapped, uint64_t all_max, char *why, size_t len)
{
	/* The reason goes to the peer too, cut at 96 bytes: the limit and the
	 * option first. */
	if (peer_mapped + bytes > peer_max) {
		snprintf(why, len,
			 "region %u: %llu MiB would pass the %llu MiB a peer may map "
			 "(podwired --memif-peer-memory-mb); this peer has %llu MiB mapped",
			 index, (unsigned long long)((peer_mapped + bytes + (1 << 20) - 1) >> 20),
			 (unsigned long long)(peer_max >> 20),
			 (unsigned long long)(peer_mapped >> 20));
		return -ENOMEM;
	}
	if (all_mapped + bytes > all_max) {
		snprintf(why, len,
			 "region %u: %llu MiB more would pass the %llu MiB all peers may map "
			 "(podwired --memif-total-memory-mb); they have %llu MiB mapped",
			 index, (unsigned long long)((bytes + (1 << 20) - 1) >> 20),
			 (unsigned long long)(all_max >> 20),
			 (unsigned long long)(all_mapped >> 20));
		return -ENOMEM;
	}
	return 0;
}
