/* SPDX-License-Identifier: BSD-3-Clause */
/* memif's control socket I/O: whole messages, fds passed with them. */
#ifndef PODWIRE_MEMIF_SOCK_H
#define PODWIRE_MEMIF_SOCK_H

#include <stddef.h>

#include "ports/memif/proto.h"

/* Sends m with pass_fd (-1: none), never blocking (a peer that does not
 * read its socket does not get to hold us up). 0, or -1 with errno. */
int memif_msg_send(int fd, const struct memif_msg *m, int pass_fd);

/* Receives one message and the fd it carried (-1: none), never blocking;
 * fds arrive close-on-exec. Returns 1, 0 when nothing is there, or -1
 * with why when the peer is gone or broke a rule (a message not 128
 * bytes, more than one fd: any fd it sent is closed then). */
int memif_msg_recv(int fd, struct memif_msg *m, int *fd_out, char *why, size_t len);

#endif
