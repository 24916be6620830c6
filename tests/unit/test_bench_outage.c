/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of perf/bench_outage.c: a pod re-opening its device through
 * outages, driven by a simulated clock and simulated link and open
 * results; and the gaps of one direction's traffic. */
#include "bench_outage.h"
#include "unit.h"

/* Ticks are milliseconds here. */
static const struct bench_reopen_conf conf = {
    .poll = 5,
    .quiet = 100,
    .retry_min = 10,
    .retry_max = 50,
    .open_timeout = 3000,
};

/* The simulated device: its link, and whether an open would succeed. */
struct sim {
	uint64_t now;
	bool link_up;
	bool backend_up; /* an open succeeds */
	bool removed;
	unsigned int checks, closes, opens;
	unsigned int downs_seen, ups_seen;
	uint64_t checked_while_down_at; /* a check in the quiet time: 0 = never */
};

/* Runs r for ms milliseconds, one tick at a time, doing what it asks. */
static void run(struct bench_reopen *r, struct sim *s, uint64_t ms)
{
	for (uint64_t end = s->now + ms; s->now < end; s->now++) {
		switch (bench_reopen_next(r, s->now)) {
		case BENCH_REOPEN_NOTHING:
			break;
		case BENCH_REOPEN_CHECK:
			s->checks++;
			CU_ASSERT_FALSE(s->removed);
			if (r->state == BENCH_REOPEN_DOWN && !r->self)
				s->checked_while_down_at = s->now;
			switch (bench_reopen_link(r, &conf, s->now, s->link_up)) {
			case BENCH_REOPEN_WENT_DOWN:
				s->downs_seen++;
				break;
			case BENCH_REOPEN_CAME_UP:
				s->ups_seen++;
				break;
			case BENCH_REOPEN_SAME:
				break;
			}
			break;
		case BENCH_REOPEN_CLOSE:
			CU_ASSERT_FALSE(s->removed);
			s->closes++;
			s->removed = true;
			s->link_up = false;
			bench_reopen_closed(r, &conf, s->now);
			break;
		case BENCH_REOPEN_OPEN:
			CU_ASSERT_TRUE(s->removed);
			s->opens++;
			if (s->backend_up) {
				s->removed = false;
				s->link_up = true; /* as virtio-user: up once opened */
			}
			bench_reopen_opened(r, &conf, s->now, s->backend_up);
			break;
		}
	}
}

static void test_up_is_only_checked(void)
{
	struct sim s = {.now = 1000, .link_up = true, .backend_up = true};
	struct bench_reopen r;

	bench_reopen_init(&r, false, s.now);
	run(&r, &s, 1000);
	/* One check per poll interval, nothing else. */
	CU_ASSERT(s.checks >= 1000 / conf.poll - 1 && s.checks <= 1000 / conf.poll + 1);
	ASSERT_INT_EQ(s.closes, 0);
	ASSERT_INT_EQ(s.opens, 0);
	ASSERT_INT_EQ(r.downs, 0);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_UP);
}

static void test_reopens_after_outage(void)
{
	struct sim s = {.now = 1000, .link_up = true, .backend_up = true};
	struct bench_reopen r;
	uint64_t down_at;

	bench_reopen_init(&r, false, s.now);
	run(&r, &s, 50);
	/* The switch dies and stays away for 400 ms. */
	s.link_up = false;
	s.backend_up = false;
	down_at = s.now;
	run(&r, &s, 400);
	ASSERT_INT_EQ(s.downs_seen, 1);
	ASSERT_INT_EQ(s.closes, 1);
	CU_ASSERT_TRUE(s.removed);
	/* No check between the link going down and the removal. */
	ASSERT_INT_EQ(s.checked_while_down_at, 0);
	/* Attempts back off: 10, 20, 40, 50, 50... ms apart after the removal
	 * (at about down_at + quiet): in the ~300 ms left, about 9. */
	CU_ASSERT(s.opens >= 6 && s.opens <= 10);
	/* It comes back: the next attempt succeeds, within retry_max. */
	s.backend_up = true;
	run(&r, &s, conf.retry_max + 2 * conf.poll);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_UP);
	ASSERT_INT_EQ(s.ups_seen, 1);
	ASSERT_INT_EQ(r.reopens, 1);
	ASSERT_INT_EQ(r.downs, 1);
	ASSERT_INT_EQ(r.attempts, s.opens);
	ASSERT_INT_EQ(r.opens, s.opens);
	CU_ASSERT(r.down_at >= down_at && r.down_at <= down_at + conf.poll);
	/* A second outage starts from the shortest interval again. */
	s.link_up = false;
	s.backend_up = false;
	s.opens = 0;
	run(&r, &s, conf.poll + conf.quiet + 1);
	ASSERT_INT_EQ(s.closes, 2);
	ASSERT_INT_EQ(s.opens, 1);
	run(&r, &s, conf.retry_min);
	ASSERT_INT_EQ(s.opens, 2);
	ASSERT_INT_EQ(r.attempts, 2);
}

static void test_open_without_link_times_out(void)
{
	struct sim s = {.now = 1000, .link_up = true, .backend_up = true};
	struct bench_reopen r;

	bench_reopen_init(&r, false, s.now);
	s.link_up = false;
	s.backend_up = false;
	run(&r, &s, conf.poll + conf.quiet + 2);
	ASSERT_INT_EQ(s.closes, 1);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_CLOSED);
	/* Opens, but the link never comes (a memif handshake refused). */
	bench_reopen_opened(&r, &conf, s.now, true);
	s.removed = false;
	s.opens = 0;
	run(&r, &s, conf.open_timeout - 10);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_OPENING);
	ASSERT_INT_EQ(s.closes, 1);
	/* Past the timeout: down again, quiet, then closed and retried. */
	run(&r, &s, 20 + conf.quiet);
	ASSERT_INT_EQ(s.closes, 2);
	CU_ASSERT(s.opens >= 1);
	ASSERT_INT_EQ(r.reopens, 0);
	ASSERT_INT_EQ(r.downs, 1); /* the same outage */
}

static void test_self_reconnecting_is_never_closed(void)
{
	struct sim s = {.now = 1000, .link_up = true};
	struct bench_reopen r;

	bench_reopen_init(&r, true, s.now);
	run(&r, &s, 20);
	s.link_up = false;
	run(&r, &s, 2000);
	ASSERT_INT_EQ(s.closes, 0);
	ASSERT_INT_EQ(s.opens, 0);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_DOWN);
	/* It is still checked while down, and seen when it comes back. */
	s.checks = 0;
	run(&r, &s, 100);
	CU_ASSERT(s.checks >= 100 / conf.poll - 1);
	s.link_up = true;
	run(&r, &s, conf.poll + 1);
	ASSERT_INT_EQ(r.state, BENCH_REOPEN_UP);
	ASSERT_INT_EQ(s.ups_seen, 1);
	ASSERT_INT_EQ(r.downs, 1);
	ASSERT_INT_EQ(r.reopens, 0);
}

static void test_gaps(void)
{
	uint64_t last = 0, from = 0;

	/* The first frame is no gap, nor are frames closer than the threshold. */
	CU_ASSERT_FALSE(bench_gap_rx(&last, 1000, 50, &from));
	CU_ASSERT_FALSE(bench_gap_rx(&last, 1010, 50, &from));
	CU_ASSERT_FALSE(bench_gap_rx(&last, 1060, 50, &from)); /* exactly the threshold */
	ASSERT_INT_EQ(from, 0);
	CU_ASSERT_TRUE(bench_gap_rx(&last, 1500, 50, &from));
	ASSERT_INT_EQ(from, 1060);
	ASSERT_INT_EQ(last, 1500);
	CU_ASSERT_FALSE(bench_gap_rx(&last, 1501, 50, &from));
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"a pod whose link stays up is only checked", test_up_is_only_checked},
	    {"an outage: quiet, removal, backoff, re-opened", test_reopens_after_outage},
	    {"opened without a link: closed again after the timeout",
	     test_open_without_link_times_out},
	    {"a self-reconnecting device is watched, never closed",
	     test_self_reconnecting_is_never_closed},
	    {"gaps in a direction's traffic", test_gaps},
	    {NULL, NULL},
	};

	return unit_run("bench_outage", tests);
}
