/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 2544-style throughput search: binary search over fixed-duration
 * trials for the highest offered rate whose loss stays at or below a
 * threshold (0 for the no-drop rate NDR, 0.005 for the partial-drop rate
 * PDR). Pure logic: a trial is a callback, so a simulated device can
 * stand in for the network.
 */
#ifndef PODWIRE_BENCH_NDR_H
#define PODWIRE_BENCH_NDR_H

/* Offers rate_pps for one trial and stores the fraction lost (0..1) in
 * *loss. Returns 0, or a negative errno that stops the search. */
typedef int (*bench_trial_fn)(double rate_pps, double *loss, void *arg);

struct bench_ndr_conf {
	double min_rate;   /* lowest rate tried, pps (> 0) */
	double max_rate;   /* highest rate tried, pps: the first trial */
	double resolution; /* the search stops when the bounds are this close, pps */
	unsigned int max_trials;
};

struct bench_ndr_result {
	double ndr_pps;
	double ndr_loss; /* loss measured at ndr_pps */
	double pdr_pps;
	double pdr_loss;
	unsigned int trials;
};

#define BENCH_PDR_LOSS 0.005

/* The highest rate in [min_rate, max_rate] with loss <= threshold, within
 * resolution: max_rate when it passes, min_rate when nothing passes (its
 * loss is then above threshold, see *loss_at_rate). *trials is increased
 * by the number of trials run. Returns 0, -EINVAL for a bad conf, or the
 * trial's error. */
int bench_ndr_search(const struct bench_ndr_conf *conf, double threshold, bench_trial_fn trial,
		     void *arg, double *rate, double *loss_at_rate, unsigned int *trials);

/* NDR then PDR (whose search starts from the NDR, since loss grows with
 * the rate). */
int bench_ndr_pdr(const struct bench_ndr_conf *conf, bench_trial_fn trial, void *arg,
		  struct bench_ndr_result *res);

#endif
