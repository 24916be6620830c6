/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl's commands that are more than one request and its answer:
 * capture (a stream), top (a refreshing view) and the trace printer.
 * podwirectl.c parses the global options and hands over.
 */
#ifndef PODWIRE_CTL_H
#define PODWIRE_CTL_H

#include <stdbool.h>

#include <cjson/cJSON.h>

/* podwirectl's exit codes. */
enum { CTL_EXIT_OK, CTL_EXIT_DAEMON, CTL_EXIT_USAGE, CTL_EXIT_TRANSPORT };

#define CTL_CAPTURE_ARGS                                                                           \
	"PORT [PORT...] [--direction rx|tx|both] [--count N] [--duration S]\n"                     \
	"           [--snaplen N] [--filter EXPR] [-q] -w FILE|-"
#define CTL_TOP_ARGS "[--interval S] [--count N] [--queues]"
#define CTL_ACL_SET_ARGS                                                                           \
	"NAME [--default permit|deny] (--file RULES.json | --rule JSON [--rule JSON...])"

/* argv: the words after "capture" / "top". Return an exit code. */
int ctl_capture(const char *sock, int timeout_ms, int argc, char **argv);
int ctl_top(const char *sock, int timeout_ms, int argc, char **argv);
/* capture list (ctl_capture.c). */
void ctl_print_capture_list(const cJSON *result);

/* trace.show's result, VPP-style. */
void ctl_print_trace(const cJSON *result);

/* queue.list's table and worker summary; a pin or unpin (pin false);
 * the balancer's settings and last check. */
void ctl_print_queue_list(const cJSON *result);
void ctl_print_queue_pin(const cJSON *params, const cJSON *result, bool pin);
void ctl_print_queue_balance(const cJSON *result);

/* acl set (rules from --file or --rule); the printers of acl list,
 * show, attach and detach (attach false). */
int ctl_acl_set(const char *sock, int timeout_ms, bool json, int argc, char **argv);
void ctl_print_acl_list(const cJSON *result);
void ctl_print_acl_show(const cJSON *result);
void ctl_print_acl_attach(const cJSON *result, bool attach);

/* vf list (a table per physnet), vf alloc, vf release (params: what was
 * asked, for "nothing to release"): ctl_vf.c. */
void ctl_print_vf_list(const cJSON *result);
void ctl_print_vf_alloc(const cJSON *result);
void ctl_print_vf_released(const cJSON *params, const cJSON *result);

/* mirror create and list; a port's rate limits ("rate in: ..." lines,
 * port show) and policer set/del's answer; acl timeouts: ctl_policy.c. */
void ctl_print_mirror_created(const cJSON *result);
void ctl_print_mirror_list(const cJSON *result);
void ctl_print_rates(const cJSON *port);
void ctl_print_policer(const cJSON *result);
void ctl_print_acl_timeouts(const cJSON *result);

/* cdi list; cdi write: the specs podwired gave written into dir (its
 * own file names only), those of kinds with no device now removed.
 * Returns an exit code. ctl_cdi.c. */
void ctl_print_cdi_list(const cJSON *result);
int ctl_cdi_write(const char *dir, const cJSON *result);

#endif
