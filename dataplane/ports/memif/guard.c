/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGBUS from a pod's memory. Sealing a region against shrinking keeps
 * its file as long as claimed, but not every page backed: a pod can punch
 * a hole in a hugetlbfs file (the page comes back only if the pool has
 * one) or fill the tmpfs it lives on, and the next access by podwired
 * faults with SIGBUS, which would end the process. So every region a peer
 * hands over is registered here while it is mapped; a SIGBUS inside one
 * replaces the whole mapping with anonymous zeroed memory (the faulting
 * access then completes on it), marks the connection broken, and the
 * control thread ends it at its next look, as for any broken ring. A
 * SIGBUS anywhere else is what it always was: fatal.
 *
 * The handler reads the table without locks (it may interrupt anyone);
 * slots are published and retired with atomic stores, and a slot is
 * retired only after workers stopped using the region (grace period).
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "daemon/log.h"
#include "ports/memif/memif.h"

PW_LOG_TYPE("memif");

struct guard_slot {
	uintptr_t base; /* 0: free */
	size_t len;
	struct memif_conn *conn;
};

/* Every port's peer regions, server and client role. */
#define GUARD_SLOTS (PW_MAX_PORTS * MEMIF_MAX_REGIONS)

static struct guard_slot slots[GUARD_SLOTS];
static struct sigaction previous;
static int installed;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	for (unsigned int i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t base = __atomic_load_n(&slots[i].base, __ATOMIC_ACQUIRE);
		size_t len = slots[i].len;

		if (base == 0 || a < base || a - base >= len)
			continue;
		/* Same addresses, now private memory: whoever faulted goes on
		 * reading zeroes, and nothing of the pod's is touched again. */
		if (mmap((void *)base, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		memif_conn_mark_broken(slots[i].conn,
				       "its shared memory lost pages under podwired (SIGBUS)");
		return;
	}
	/* Not ours: the default action, as if no handler were here. */
	if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction != NULL) {
		previous.sa_sigaction(sig, si, uc);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

int memif_guard_init(void)
{
	struct sigaction sa;

	if (installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous) != 0)
		return -1;
	installed = 1;
	return 0;
}

int memif_guard_add(void *base, size_t len, struct memif_conn *c)
{
	for (unsigned int i = 0; i < GUARD_SLOTS; i++) {
		if (slots[i].base != 0)
			continue;
		slots[i].len = len;
		slots[i].conn = c;
		__atomic_store_n(&slots[i].base, (uintptr_t)base, __ATOMIC_RELEASE);
		return 0;
	}
	LOG(ERR, "SIGBUS guard: all %u slots in use", GUARD_SLOTS);
	return -1;
}

void memif_guard_del(void *base)
{
	for (unsigned int i = 0; i < GUARD_SLOTS; i++)
		if (slots[i].base == (uintptr_t)base) {
			__atomic_store_n(&slots[i].base, 0, __ATOMIC_RELEASE);
			return;
		}
}
