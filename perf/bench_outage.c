/* SPDX-License-Identifier: BSD-3-Clause */
#include "bench_outage.h"

static void enter(struct bench_reopen *r, enum bench_reopen_state s, uint64_t now, uint64_t due)
{
	r->state = s;
	r->since = now;
	r->due = due;
}

void bench_reopen_init(struct bench_reopen *r, bool self, uint64_t now)
{
	*r = (struct bench_reopen){.self = self};
	enter(r, BENCH_REOPEN_UP, now, now);
}

enum bench_reopen_action bench_reopen_next(const struct bench_reopen *r, uint64_t now)
{
	if (now < r->due)
		return BENCH_REOPEN_NOTHING;
	switch (r->state) {
	case BENCH_REOPEN_UP:
	case BENCH_REOPEN_OPENING:
		return BENCH_REOPEN_CHECK;
	case BENCH_REOPEN_DOWN:
		return r->self ? BENCH_REOPEN_CHECK : BENCH_REOPEN_CLOSE;
	case BENCH_REOPEN_CLOSED:
		return BENCH_REOPEN_OPEN;
	}
	return BENCH_REOPEN_NOTHING;
}

enum bench_reopen_event bench_reopen_link(struct bench_reopen *r, const struct bench_reopen_conf *c,
					  uint64_t now, bool up)
{
	switch (r->state) {
	case BENCH_REOPEN_UP:
		if (up) {
			r->due = now + c->poll;
			return BENCH_REOPEN_SAME;
		}
		r->downs++;
		r->down_at = now;
		r->attempts = 0;
		/* A driver that saw its peer leave may still run deferred work on
		 * the device (virtio-user disconnects from an alarm that every
		 * link check re-arms while the socket is dead): it is neither
		 * checked nor removed until that is surely done. One that
		 * reconnects by itself is checked as usual. */
		enter(r, BENCH_REOPEN_DOWN, now, now + (r->self ? c->poll : c->quiet));
		return BENCH_REOPEN_WENT_DOWN;
	case BENCH_REOPEN_DOWN:
		/* Only a self-reconnecting device is checked while down. */
		if (!up) {
			r->due = now + c->poll;
			return BENCH_REOPEN_SAME;
		}
		enter(r, BENCH_REOPEN_UP, now, now + c->poll);
		return BENCH_REOPEN_CAME_UP;
	case BENCH_REOPEN_OPENING:
		if (up) {
			r->reopens++;
			enter(r, BENCH_REOPEN_UP, now, now + c->poll);
			return BENCH_REOPEN_CAME_UP;
		}
		if (now - r->since >= c->open_timeout)
			enter(r, BENCH_REOPEN_DOWN, now, now + c->quiet);
		else
			r->due = now + c->poll;
		return BENCH_REOPEN_SAME;
	case BENCH_REOPEN_CLOSED:
		break;
	}
	return BENCH_REOPEN_SAME;
}

void bench_reopen_closed(struct bench_reopen *r, const struct bench_reopen_conf *c, uint64_t now)
{
	enter(r, BENCH_REOPEN_CLOSED, now, now);
	if (r->retry == 0)
		r->retry = c->retry_min;
}

void bench_reopen_opened(struct bench_reopen *r, const struct bench_reopen_conf *c, uint64_t now,
			 bool ok)
{
	r->attempts++;
	r->opens++;
	if (ok) {
		r->retry = 0; /* the next outage starts from retry_min */
		enter(r, BENCH_REOPEN_OPENING, now, now + c->poll);
		return;
	}
	enter(r, BENCH_REOPEN_CLOSED, now, now + r->retry);
	r->retry *= 2;
	if (r->retry > c->retry_max)
		r->retry = c->retry_max;
}
