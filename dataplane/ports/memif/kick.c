/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kicks: a peer that does not poll a ring clears its MASK_INT flag and
 * waits on the ring's eventfd. Writing that eventfd from a worker could
 * block it: the peer shares the eventfd's file description, so it can
 * clear O_NONBLOCK and fill the counter. So workers only mark the ring
 * and ring podwired's own doorbell; this thread writes the peers'
 * eventfds, each write bounded (ports/doorbell.h), never holding
 * a lock the control thread takes. A write that would block marks the
 * connection, which the control thread then closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "ports/doorbell.h"
#include "ports/memif/port.h"

PW_LOG_TYPE("memif");

#define KICK_SIGNAL (SIGRTMIN + 4)

/* The kicker's view of one connection. The eventfds are the kicker's own
 * duplicates, so the control thread can close the connection's fds and
 * free it at any time: it only unhooks c (under the lock) and the kicker,
 * the only one to free entries, closes the duplicates when it next wakes. */
struct kick_entry {
	struct memif_conn *c; /* NULL: removed */
	int fd[MEMIF_MAX_QUEUE_PAIRS];
	uint16_t n;
	bool failed;
	struct kick_entry *next;
};

static int doorbell = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kick_entry *entries;

static void entry_free(struct kick_entry *e)
{
	for (uint16_t k = 0; k < e->n; k++)
		if (e->fd[k] >= 0)
			close(e->fd[k]);
	free(e);
}

/* Under the lock: takes the pending kicks into todo (entry, ring) and
 * frees the removed entries. Returns how many were taken. */
static unsigned int collect(struct kick_entry **todo_e, uint16_t *todo_k, unsigned int max)
{
	unsigned int n = 0;

	for (struct kick_entry **pp = &entries; *pp != NULL;) {
		struct kick_entry *e = *pp;

		if (e->c == NULL) {
			*pp = e->next;
			entry_free(e);
			continue;
		}
		for (uint16_t k = 0; k < e->n && n < max; k++) {
			if (!__atomic_exchange_n(&e->c->tx[k].kick_pending, 0, __ATOMIC_ACQ_REL))
				continue;
			todo_e[n] = e;
			todo_k[n++] = k;
		}
		pp = &e->next;
	}
	return n;
}

static void *kick_main(void *arg)
{
	enum { TODO_MAX = 256 };
	struct pollfd pfd = {.fd = doorbell, .events = POLLIN};
	struct kick_entry *todo_e[TODO_MAX];
	uint16_t todo_k[TODO_MAX];
	timer_t guard;

	(void)arg;
	if (doorbell_timer(KICK_SIGNAL, &guard) != 0) {
		LOG(ERR, "kicks: cannot make a timer: %s; peers in interrupt mode get none",
		    strerror(errno));
		return NULL;
	}
	for (;;) {
		unsigned int n;
		bool more;
		uint64_t v;

		if (poll(&pfd, 1, -1) <= 0 || read(doorbell, &v, sizeof(v)) != sizeof(v))
			continue;
		do {
			pthread_mutex_lock(&lock);
			n = collect(todo_e, todo_k, TODO_MAX);
			pthread_mutex_unlock(&lock);
			/* Outside the lock: a peer that makes a write slow holds
			 * up only the kicks behind it, never the control thread. */
			for (unsigned int i = 0; i < n; i++)
				if (!doorbell_ring(guard, todo_e[i]->fd[todo_k[i]]))
					todo_e[i]->failed = true;
			pthread_mutex_lock(&lock);
			for (struct kick_entry *e = entries; e != NULL; e = e->next) {
				if (e->failed && e->c != NULL)
					__atomic_store_n(&e->c->kick_failed, 1, __ATOMIC_RELEASE);
				e->failed = false;
			}
			pthread_mutex_unlock(&lock);
			more = n == TODO_MAX;
		} while (more);
	}
	return NULL;
}

int memif_kick_start(void)
{
	pthread_t t;

	if (doorbell >= 0)
		return 0;
	doorbell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (doorbell < 0 || doorbell_signal_init(KICK_SIGNAL) != 0 ||
	    pthread_create(&t, NULL, kick_main, NULL) != 0) {
		LOG(ERR, "kicks: cannot start: %s", strerror(errno));
		if (doorbell >= 0)
			close(doorbell);
		doorbell = -1;
		return -errno;
	}
	pthread_setname_np(t, "pw-memif-kick");
	pthread_detach(t);
	return 0;
}

static void ring_doorbell(void)
{
	uint64_t one = 1;

	if (doorbell >= 0 && write(doorbell, &one, sizeof(one)) < 0) {
		/* Full (2^64 - 2 rings unread): the kicker is awake anyway. */
	}
}

int memif_kick_add(struct memif_conn *c)
{
	struct kick_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return -ENOMEM;
	e->n = c->n_tx;
	for (uint16_t k = 0; k < e->n; k++) {
		e->fd[k] = c->tx[k].kick_fd < 0 ? -1 : fcntl(c->tx[k].kick_fd, F_DUPFD_CLOEXEC, 0);
		if (c->tx[k].kick_fd >= 0 && e->fd[k] < 0) {
			int rc = -errno;

			e->n = k;
			entry_free(e);
			return rc;
		}
	}
	e->c = c;
	pthread_mutex_lock(&lock);
	e->next = entries;
	entries = e;
	pthread_mutex_unlock(&lock);
	return 0;
}

void memif_kick_del(struct memif_conn *c)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (struct kick_entry *e = entries; e != NULL; e = e->next)
		if (e->c == c) {
			e->c = NULL;
			found = true;
		}
	pthread_mutex_unlock(&lock);
	/* The kicker closes the duplicates when it wakes. */
	if (found)
		ring_doorbell();
}

void memif_kick_request(struct memif_qring *r)
{
	uint64_t one = 1;

	if (__atomic_load_n(&r->kick_pending, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&r->kick_pending, 1, __ATOMIC_RELEASE);
	/* Our own eventfd, non-blocking, drained by the kicker. */
	if (doorbell >= 0 && write(doorbell, &one, sizeof(one)) < 0)
		__atomic_store_n(&r->kick_pending, 0, __ATOMIC_RELAXED);
}
