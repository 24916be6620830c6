/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SIGBUS guard (guard.h). The handler reads the table without locks
 * (it may interrupt anyone): slots are published and retired with atomic
 * stores. Writers (guard_add, guard_del*) are serialised by a mutex; they
 * run on control paths (the control thread, librte_vhost's thread).
 *
 * EAL has a SIGBUS handler of its own that it installs only while it maps
 * a new hugepage (eal_memalloc.c, dynamic memory), saving the one it
 * found and putting it back after: this one, once installed. So this
 * handler is installed once, from the first port's creation on the
 * control thread, before any other thread maps hugepages (librte_vhost's
 * thread starts with the first vhost-user port), and never over another
 * handler afterwards (that is EAL's, for the moment it maps a page). A
 * fault in a pod's memory during that moment goes to EAL's handler: the
 * one window left. Should the default action be found in its place,
 * guard_init and guard_add install it again.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "datapath/view.h"
#include "ports/guard.h"

struct guard_slot {
	uintptr_t base; /* 0: free */
	size_t len;
	guard_fault_fn fault;
	void *owner;
};

/* memif: 16 regions a port; vhost-user: 8. */
#define GUARD_SLOTS (PW_MAX_PORTS * 24)

static struct guard_slot slots[GUARD_SLOTS];
static struct sigaction previous;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
		slots[i].fault(slots[i].owner);
		return;
	}
	/* Not ours: whoever was there before, or the default action. */
	if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction != NULL) {
		previous.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler != SIG_DFL &&
	    previous.sa_handler != SIG_IGN && previous.sa_handler != NULL) {
		previous.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static bool installed;

static int install_locked(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGBUS, NULL, &cur) != 0)
		return -errno;
	if (cur.sa_flags & SA_SIGINFO && cur.sa_sigaction == on_sigbus)
		return 0;
	/* Another handler over this one: EAL's, while it maps a hugepage on
	 * another thread. It puts this one back when it is done. */
	if (installed && (cur.sa_flags & SA_SIGINFO || cur.sa_handler != SIG_DFL))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	/* What was there is what faults outside the pods' memory go to. The
	 * first install is on the control thread before any other thread
	 * maps hugepages (the first port's creation); a later one finds the
	 * default action put back by someone who saved it meanwhile. */
	previous = cur;
	if (sigaction(SIGBUS, &sa, NULL) != 0)
		return -errno;
	installed = true;
	return 0;
}

int guard_init(void)
{
	int rc;

	pthread_mutex_lock(&lock);
	rc = install_locked();
	pthread_mutex_unlock(&lock);
	return rc;
}

int guard_add(void *base, size_t len, guard_fault_fn fault, void *owner)
{
	uintptr_t b = (uintptr_t)base;
	int free_slot = -1, rc;

	pthread_mutex_lock(&lock);
	rc = install_locked();
	for (unsigned int i = 0; i < GUARD_SLOTS && rc == 0; i++) {
		uintptr_t sb = slots[i].base;

		if (sb != 0 && sb < b + len && b < sb + slots[i].len)
			__atomic_store_n(&slots[i].base, 0, __ATOMIC_RELEASE);
		else if (sb != 0)
			continue;
		if (free_slot < 0)
			free_slot = (int)i;
	}
	if (rc == 0 && free_slot < 0)
		rc = -ENOSPC;
	if (rc == 0) {
		slots[free_slot].len = len;
		slots[free_slot].fault = fault;
		slots[free_slot].owner = owner;
		__atomic_store_n(&slots[free_slot].base, b, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void guard_del(void *base)
{
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < GUARD_SLOTS; i++)
		if (slots[i].base == (uintptr_t)base)
			__atomic_store_n(&slots[i].base, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}

void guard_del_owner(const void *owner)
{
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < GUARD_SLOTS; i++)
		if (slots[i].base != 0 && slots[i].owner == owner)
			__atomic_store_n(&slots[i].base, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}
