/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Validation of user-supplied values, shared by the daemon and clients so
 * both give the same answer. Each function returns 0, or -EINVAL and a
 * message naming the object, the field and the fix.
 */
#ifndef PODWIRE_VALIDATE_H
#define PODWIRE_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

/* what: "network" or "port", used in the message. */
int validate_name(const char *what, const char *name, char *msg, size_t len);

/* Parses "aa:bb:cc:dd:ee:ff" (or '-' separated); rejects multicast and zero. */
int validate_mac(const char *obj, const char *text, uint8_t mac[6], char *msg, size_t len);

/* Absolute, at most API_SOCKET_PATH_MAX bytes, no "..", not ending in '/'. */
int validate_socket_path_shape(const char *obj, const char *path, char *msg, size_t len);

/* The shape above, and: the parent directory exists (and is writable when
 * need_write); the path, if it exists, is a socket. */
int validate_socket_path(const char *obj, const char *path, int need_write, char *msg, size_t len);

/* The ranges of the API's integers (MTU, limits) are checked against its
 * table: api_check_params, or api_param_find and api_field_check_int for
 * a reader of its own names. This is for the VLAN of vf.alloc's handler. */
int validate_vlan(const char *obj, long vlan, char *msg, size_t len);

/* A kernel interface name: 1-15 bytes, no '/', ':' or white space, not "." or "..". */
int validate_ifname(const char *obj, const char *name, char *msg, size_t len);

/* A PCI address "0000:01:10.2" (domain optional: "01:10.2"); writes the
 * full lower-case form into out (at least 13 bytes). */
int validate_pci_addr(const char *obj, const char *text, char *out, char *msg, size_t len);

/* A count with an optional SI suffix: "100m" is 100000000 (k, m, g:
 * thousands, millions, billions; either case). 0, or -EINVAL with msg
 * "<obj>: <what> "<text>" is not ..." naming the fix. */
int validate_si_number(const char *obj, const char *what, const char *text, long *out, char *msg,
		       size_t len);

/* A rate limit as the Docker option podwire.rate and podwirectl's
 * --rate-in/--rate-out give it: "pps=N[,burst=N]" or "bps=N[,burst=N]",
 * N with validate_si_number's suffixes. What is absent is -1; the
 * daemon checks the values (ranges, pps with bps, burst without rate). */
int validate_rate_spec(const char *obj, const char *spec, long *pps, long *bps, long *burst,
		       char *msg, size_t len);

/* Formats a MAC as "aa:bb:cc:dd:ee:ff" into buf (at least 18 bytes). */
void format_mac(const uint8_t mac[6], char *buf);

#endif
