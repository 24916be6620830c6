/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's loop (dataplane/core/loop.c), over socketpairs and
 * eventfds: each event goes to its own watch's callback; a watch deleted
 * from a callback gets no callback for the events of the same batch, and
 * what it names is released only after the batch (under ASan, a callback
 * of a deleted watch reads freed memory); the daemon's turn and stop.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/loop.h"
#include "unit.h"

/* A stand-in for an API client: a connection with a buffer of its own. */
struct conn {
	int fd, peer;
	struct loop_watch *w;
	char *buf;
	unsigned int calls;
	uint32_t events;
	struct conn *victim; /* closed by this one's callback, if open */
	bool close_self;     /* closed by its own callback */
	struct conn **slot;  /* where the test keeps this conn, cleared on release */
};

static unsigned int released, released_before_batch;

/* Every callback: nothing was released yet in this batch (a release
 * comes after the batch, never between two of its callbacks). */
static void callback_check(void)
{
	ASSERT_INT_EQ(released, released_before_batch);
}

static void conn_release(void *arg)
{
	struct conn *c = arg;

	released++;
	if (c->slot != NULL)
		*c->slot = NULL;
	free(c->buf);
	free(c);
}

/* Closes c as the API server closes a client: its watch, its socket, its
 * buffer now; the rest with the watch. */
static void conn_close(struct conn *c)
{
	loop_watch_del_release(c->w, conn_release);
	close(c->fd);
	close(c->peer);
	free(c->buf);
	c->buf = NULL;
	c->fd = c->peer = -1;
}

static void conn_on_event(void *arg, uint32_t events)
{
	struct conn *c = arg;
	char b[64];

	callback_check();
	/* A freed conn reads as a use-after-free under ASan; a closed one
	 * (buffer gone) fails here without it. Not fatal: a longjmp out of
	 * the loop would leave ctl_lock held. */
	CU_ASSERT(c->buf != NULL);
	if (c->buf == NULL)
		return;
	c->calls++;
	c->events |= events;
	c->buf[0] = 'x';
	while (recv(c->fd, b, sizeof(b), MSG_DONTWAIT) > 0)
		;
	if (c->victim != NULL && c->victim->buf != NULL)
		conn_close(c->victim);
	if (c->close_self)
		conn_close(c);
}

static struct conn *conn_new(struct conn **slot)
{
	struct conn *c = calloc(1, sizeof(*c));
	int sv[2];

	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	c->fd = sv[0];
	c->peer = sv[1];
	c->buf = malloc(64);
	c->slot = slot;
	c->w = loop_watch_add(c->fd, EPOLLIN, conn_on_event, c);
	CU_ASSERT_FATAL(c->buf != NULL && c->w != NULL);
	*slot = c;
	return c;
}

/* Dispatches one batch, waiting up to timeout_ms for it. */
static int turn(int timeout_ms)
{
	released_before_batch = released;
	return loop_run_once(timeout_ms);
}

static void test_dispatch_to_own_watch(void)
{
	struct conn *a, *b;

	conn_new(&a);
	conn_new(&b);
	ASSERT_INT_EQ(turn(0), 0);
	CU_ASSERT(send(b->peer, "b", 1, 0) == 1);
	ASSERT_INT_EQ(turn(1000), 1);
	ASSERT_INT_EQ(a->calls, 0);
	ASSERT_INT_EQ(b->calls, 1);
	CU_ASSERT(b->events & EPOLLIN);
	CU_ASSERT(send(a->peer, "a", 1, 0) == 1);
	CU_ASSERT(send(b->peer, "b", 1, 0) == 1);
	ASSERT_INT_EQ(turn(1000), 2);
	ASSERT_INT_EQ(a->calls, 1);
	ASSERT_INT_EQ(b->calls, 2);
	/* Nothing left: both read what they had. */
	ASSERT_INT_EQ(turn(0), 0);

	released = 0;
	conn_close(a);
	conn_close(b);
	ASSERT_INT_EQ(turn(0), 0);
	ASSERT_INT_EQ(released, 2);
	CU_ASSERT(a == NULL && b == NULL);
}

/*
 * One batch carries events for a and b; whichever runs first closes the
 * other, as the API server closes the client idle longest when a new one
 * arrives: the other's event, already fetched, must reach nobody (not its
 * callback, not freed memory), and the other is released after the batch.
 */
static void test_delete_from_callback_in_same_batch(void)
{
	struct conn *a, *b;

	released = 0;
	conn_new(&a);
	conn_new(&b);
	a->victim = b;
	b->victim = a;
	CU_ASSERT(send(a->peer, "a", 1, 0) == 1);
	CU_ASSERT(send(b->peer, "b", 1, 0) == 1);
	/* Both events in the one batch, one callback. */
	ASSERT_INT_EQ(turn(1000), 2);
	ASSERT_INT_EQ(released, 1);
	CU_ASSERT((a == NULL) != (b == NULL));
	{
		struct conn *left = a != NULL ? a : b;

		ASSERT_INT_EQ(left->calls, 1);
		left->victim = NULL;
		conn_close(left);
	}
	ASSERT_INT_EQ(turn(0), 0);
	ASSERT_INT_EQ(released, 2);
}

/* The victim's fd number is reused at once by a new watch in the same
 * callback: the stale event of the batch names the old watch, so the new
 * one hears nothing until its own fd has something. */
static struct conn *fresh;

static void closer_then_open(void *arg, uint32_t events)
{
	struct conn *victim = *(struct conn **)arg;

	(void)events;
	callback_check();
	if (victim != NULL && victim->buf != NULL) {
		conn_close(victim);
		conn_new(&fresh);
	}
}

static void test_new_watch_after_delete_in_batch(void)
{
	struct conn *victim;
	struct loop_watch *w;
	int efd = eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);

	released = 0;
	CU_ASSERT_FATAL(efd >= 0);
	/* The eventfd is ready when added, the victim only once sent to:
	 * epoll lists them in that order. */
	w = loop_watch_add(efd, EPOLLIN, closer_then_open, &victim);
	CU_ASSERT_FATAL(w != NULL);
	conn_new(&victim);
	CU_ASSERT(send(victim->peer, "v", 1, 0) == 1);
	ASSERT_INT_EQ(turn(1000), 2);
	ASSERT_INT_EQ(released, 1);
	CU_ASSERT(victim == NULL);
	CU_ASSERT_FATAL(fresh != NULL);
	ASSERT_INT_EQ(fresh->calls, 0);
	loop_watch_del(w);
	close(efd);
	CU_ASSERT(send(fresh->peer, "f", 1, 0) == 1);
	ASSERT_INT_EQ(turn(1000), 1);
	ASSERT_INT_EQ(fresh->calls, 1);
	conn_close(fresh);
	ASSERT_INT_EQ(turn(0), 0);
	ASSERT_INT_EQ(released, 2);
	CU_ASSERT(fresh == NULL);
}

/* A watch that deletes itself, and one deleted between batches. */
static void test_self_delete_and_idle_delete(void)
{
	struct conn *c, *idle;

	released = 0;
	conn_new(&c);
	conn_new(&idle);
	/* Deleted between batches: released at the end of the next turn,
	 * even one without events. */
	conn_close(idle);
	ASSERT_INT_EQ(released, 0);
	CU_ASSERT(idle != NULL);
	ASSERT_INT_EQ(turn(0), 0);
	ASSERT_INT_EQ(released, 1);
	CU_ASSERT(idle == NULL);

	c->close_self = true;
	CU_ASSERT(send(c->peer, "c", 1, 0) == 1);
	ASSERT_INT_EQ(turn(1000), 1);
	ASSERT_INT_EQ(released, 2);
	CU_ASSERT(c == NULL);
}

/* A writable socket: EPOLLOUT only while asked for. */
static void test_mod(void)
{
	struct conn *c;

	conn_new(&c);
	ASSERT_INT_EQ(turn(0), 0);
	CU_ASSERT(loop_watch_mod(c->w, EPOLLIN | EPOLLOUT) == 0);
	ASSERT_INT_EQ(turn(1000), 1);
	CU_ASSERT(c->events & EPOLLOUT);
	CU_ASSERT(loop_watch_mod(c->w, EPOLLIN) == 0);
	ASSERT_INT_EQ(turn(0), 0);
	conn_close(c);
	/* A deleted watch cannot be changed. */
	CU_ASSERT(loop_watch_mod(c->w, EPOLLIN) == -EINVAL);
	ASSERT_INT_EQ(turn(0), 0);
}

/* loop_run: a turn after every batch (timeouts included), none after the
 * batch that stopped the loop. */
static unsigned int turns;
static int stop_fd = -1;

static void on_turn(void)
{
	uint64_t one = 1;

	/* The third turn asks for the stop: the next batch has it. */
	if (++turns == 3)
		CU_ASSERT(write(stop_fd, &one, sizeof(one)) == sizeof(one));
}

static void stopper(void *arg, uint32_t events)
{
	uint64_t v;

	(void)arg;
	(void)events;
	if (read(stop_fd, &v, sizeof(v)) == sizeof(v))
		loop_stop();
}

static void test_run_and_stop(void)
{
	struct loop_watch *w;

	stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CU_ASSERT_FATAL(stop_fd >= 0);
	w = loop_watch_add(stop_fd, EPOLLIN, stopper, NULL);
	CU_ASSERT_FATAL(w != NULL);
	/* Twice: a stopped loop runs again. */
	for (int i = 0; i < 2; i++) {
		turns = 0;
		ASSERT_INT_EQ(loop_run(10, on_turn), 0);
		ASSERT_INT_EQ(turns, 3);
	}
	loop_watch_del(w);
	close(stop_fd);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"events go to their own watch", test_dispatch_to_own_watch},
	    {"a watch deleted in the same batch gets no callback",
	     test_delete_from_callback_in_same_batch},
	    {"a new watch on a reused fd hears no stale event",
	     test_new_watch_after_delete_in_batch},
	    {"a watch deletes itself; one deleted between batches",
	     test_self_delete_and_idle_delete},
	    {"loop_watch_mod", test_mod},
	    {"loop_run and loop_stop", test_run_and_stop},
	    {NULL, NULL},
	};

	if (loop_init() != 0)
		return 1;
	return unit_run("loop", tests);
}
