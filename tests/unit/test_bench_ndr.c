/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of perf/bench_ndr.c: the NDR/PDR search against simulated
 * devices whose loss curve is known. */
#include <errno.h>
#include <math.h>

#include "bench_ndr.h"
#include "unit.h"

/* A device that forwards up to capacity pps and drops the excess, plus a
 * constant background loss fraction. */
struct sim {
	double capacity;
	double floor_loss;
	unsigned int trials;
	int fail_at; /* trial number that reports an error, 0 = never */
	double max_offered;
	double min_offered;
};

static int sim_trial(double rate, double *loss, void *arg)
{
	struct sim *s = arg;

	s->trials++;
	if (s->fail_at != 0 && (int)s->trials == s->fail_at)
		return -EIO;
	if (rate > s->max_offered)
		s->max_offered = rate;
	if (s->min_offered == 0 || rate < s->min_offered)
		s->min_offered = rate;
	*loss = rate <= s->capacity ? 0 : (rate - s->capacity) / rate;
	*loss += s->floor_loss;
	return 0;
}

static const struct bench_ndr_conf conf = {
    .min_rate = 100000,
    .max_rate = 10000000,
    .resolution = 100000,
};

static void test_known_curve(void)
{
	struct sim s = {.capacity = 6300000};
	struct bench_ndr_result r;
	/* loss = (rate - C) / rate = 0.005 at rate = C / 0.995 */
	double pdr = s.capacity / (1 - BENCH_PDR_LOSS);

	ASSERT_INT_EQ(bench_ndr_pdr(&conf, sim_trial, &s, &r), 0);
	/* The answer is a passing rate no further than the resolution below the truth. */
	unit_check(r.ndr_pps <= s.capacity && r.ndr_pps >= s.capacity - conf.resolution, __LINE__,
		   __FILE__, "NDR %.0f, expected within %.0f below %.0f", r.ndr_pps,
		   conf.resolution, s.capacity);
	CU_ASSERT_DOUBLE_EQUAL(r.ndr_loss, 0, 0);
	unit_check(r.pdr_pps <= pdr && r.pdr_pps >= pdr - conf.resolution, __LINE__, __FILE__,
		   "PDR %.0f, expected within %.0f below %.0f", r.pdr_pps, conf.resolution, pdr);
	CU_ASSERT(r.pdr_loss <= BENCH_PDR_LOSS);
	CU_ASSERT(r.pdr_pps >= r.ndr_pps);
	ASSERT_INT_EQ(r.trials, s.trials);
	/* A binary search: about log2(range / resolution) trials each. */
	unit_check(r.trials <= 2 * (2 + (unsigned int)ceil(log2(100))), __LINE__, __FILE__,
		   "%u trials", r.trials);
	CU_ASSERT(s.max_offered <= conf.max_rate);
	CU_ASSERT(s.min_offered >= conf.min_rate);
}

static void test_no_loss_at_max(void)
{
	struct sim s = {.capacity = 1e12};
	struct bench_ndr_result r;

	ASSERT_INT_EQ(bench_ndr_pdr(&conf, sim_trial, &s, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.ndr_pps, conf.max_rate, 0);
	CU_ASSERT_DOUBLE_EQUAL(r.pdr_pps, conf.max_rate, 0);
	/* One trial each: the top rate passed at once. */
	ASSERT_INT_EQ(r.trials, 2);
}

static void test_capacity_exactly_max(void)
{
	struct sim s = {.capacity = conf.max_rate};
	struct bench_ndr_result r;

	ASSERT_INT_EQ(bench_ndr_pdr(&conf, sim_trial, &s, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.ndr_pps, conf.max_rate, 0);
}

static void test_lossy_everywhere(void)
{
	/* 0.1% loss at every rate: no NDR above the minimum, but a PDR at the top. */
	struct sim s = {.capacity = 1e12, .floor_loss = 0.001};
	struct bench_ndr_result r;

	ASSERT_INT_EQ(bench_ndr_pdr(&conf, sim_trial, &s, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(r.ndr_pps, conf.min_rate, 0);
	CU_ASSERT(r.ndr_loss > 0); /* the caller can tell that nothing passed */
	CU_ASSERT_DOUBLE_EQUAL(r.pdr_pps, conf.max_rate, 0);
}

static void test_single_search_thresholds(void)
{
	struct sim s = {.capacity = 2500000};
	double rate = 0, loss = -1;
	unsigned int trials = 0;
	/* loss 10% at rate = C / 0.9 */
	double want = s.capacity / 0.9;

	ASSERT_INT_EQ(bench_ndr_search(&conf, 0.10, sim_trial, &s, &rate, &loss, &trials), 0);
	unit_check(rate <= want && rate >= want - conf.resolution, __LINE__, __FILE__,
		   "rate %.0f, expected within %.0f below %.0f", rate, conf.resolution, want);
	CU_ASSERT(loss <= 0.10);
	ASSERT_INT_EQ(trials, s.trials);
}

static void test_fine_resolution(void)
{
	struct bench_ndr_conf c = conf;
	struct sim s = {.capacity = 1234567};
	double rate = 0, loss;
	unsigned int trials = 0;

	c.resolution = 10;
	ASSERT_INT_EQ(bench_ndr_search(&c, 0, sim_trial, &s, &rate, &loss, &trials), 0);
	unit_check(rate <= s.capacity && rate >= s.capacity - 10, __LINE__, __FILE__,
		   "rate %.1f, expected within 10 below %.0f", rate, s.capacity);
}

static void test_errors(void)
{
	struct bench_ndr_conf c = conf;
	struct bench_ndr_result r;
	struct sim s = {.capacity = 5000000, .fail_at = 3};
	double rate = -1, loss;
	unsigned int trials = 0;

	/* A failing trial stops the search and its error comes back. */
	ASSERT_INT_EQ(bench_ndr_pdr(&conf, sim_trial, &s, &r), -EIO);
	ASSERT_INT_EQ(s.trials, 3);

	s.trials = 0;
	s.fail_at = 0;
	c.min_rate = 0;
	ASSERT_INT_EQ(bench_ndr_search(&c, 0, sim_trial, &s, &rate, &loss, &trials), -EINVAL);
	c = conf;
	c.max_rate = c.min_rate / 2;
	ASSERT_INT_EQ(bench_ndr_search(&c, 0, sim_trial, &s, &rate, &loss, &trials), -EINVAL);
	c = conf;
	c.resolution = 0;
	ASSERT_INT_EQ(bench_ndr_search(&c, 0, sim_trial, &s, &rate, &loss, &trials), -EINVAL);
	ASSERT_INT_EQ(s.trials, 0);
	CU_ASSERT_DOUBLE_EQUAL(rate, -1, 0);
}

static void test_trial_limit(void)
{
	struct bench_ndr_conf c = conf;
	struct sim s = {.capacity = 3333333};
	double rate = 0, loss;
	unsigned int trials = 0;

	c.resolution = 1e-6;
	c.max_trials = 5;
	ASSERT_INT_EQ(bench_ndr_search(&c, 0, sim_trial, &s, &rate, &loss, &trials), 0);
	CU_ASSERT(trials <= 6); /* the limit, plus at most the min_rate check */
	CU_ASSERT(rate <= s.capacity);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"NDR and PDR of a known loss curve", test_known_curve},
	    {"no loss at the top rate reports the top rate", test_no_loss_at_max},
	    {"capacity exactly the top rate", test_capacity_exactly_max},
	    {"loss at every rate", test_lossy_everywhere},
	    {"one search, 10% threshold", test_single_search_thresholds},
	    {"fine resolution", test_fine_resolution},
	    {"trial errors and bad configurations", test_errors},
	    {"trial limit", test_trial_limit},
	    {NULL, NULL},
	};

	return unit_run("bench_ndr", tests);
}
