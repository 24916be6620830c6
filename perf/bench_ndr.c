/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include "bench_ndr.h"

int bench_ndr_search(const struct bench_ndr_conf *conf, double threshold, bench_trial_fn trial,
		     void *arg, double *rate, double *loss_at_rate, unsigned int *trials)
{
	double lo = conf->min_rate, hi = conf->max_rate, lo_loss = -1, loss;
	unsigned int n = 0, limit = conf->max_trials ? conf->max_trials : 64;
	int rc;

	if (!(conf->min_rate > 0) || conf->max_rate < conf->min_rate || !(conf->resolution > 0))
		return -EINVAL;

	/* A device that keeps up at the top rate needs a single trial. */
	rc = trial(hi, &loss, arg);
	n++;
	if (rc < 0)
		goto out;
	if (loss <= threshold) {
		*rate = hi;
		*loss_at_rate = loss;
		goto out;
	}
	/* Invariant: hi fails; lo passes once lo_loss >= 0 (lo is then known). */
	while (hi - lo > conf->resolution && n < limit) {
		double mid = lo + (hi - lo) / 2;

		rc = trial(mid, &loss, arg);
		n++;
		if (rc < 0)
			goto out;
		if (loss <= threshold) {
			lo = mid;
			lo_loss = loss;
		} else {
			hi = mid;
		}
	}
	if (lo_loss < 0) {
		/* min_rate itself was never tried. */
		rc = trial(lo, &lo_loss, arg);
		n++;
		if (rc < 0)
			goto out;
	}
	*rate = lo;
	*loss_at_rate = lo_loss;
	rc = 0;
out:
	*trials += n;
	return rc < 0 ? rc : 0;
}

int bench_ndr_pdr(const struct bench_ndr_conf *conf, bench_trial_fn trial, void *arg,
		  struct bench_ndr_result *res)
{
	struct bench_ndr_conf pdr_conf = *conf;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = bench_ndr_search(conf, 0, trial, arg, &res->ndr_pps, &res->ndr_loss, &res->trials);
	if (rc < 0)
		return rc;
	if (res->ndr_loss <= 0)
		pdr_conf.min_rate = res->ndr_pps;
	return bench_ndr_search(&pdr_conf, BENCH_PDR_LOSS, trial, arg, &res->pdr_pps,
				&res->pdr_loss, &res->trials);
}
