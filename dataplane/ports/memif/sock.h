/* SPDX-License-Identifier: BSD-3-Clause */
/* memif's control socket I/O: whole messages, fds passed with them. */
#ifndef PODWIRE_MEMIF_SOCK_H
#define PODWIRE_MEMIF_SOCK_H

#include <stddef.h>

#include <stdint.h>

#include "ports/memif/proto.h"
#include "ports/memif/ring.h"

/* Sends m with pass_fd (-1: none), never blocking (a peer that does not
 * read its socket does not get to hold us up). 0, or -1 with errno. */
int memif_msg_send(int fd, const struct memif_msg *m, int pass_fd);

/* Receives one message and the fd it carried (-1: none), never blocking;
 * fds arrive close-on-exec. Returns 1, 0 when nothing is there, or -1
 * with why when the peer is gone or broke a rule (a message not 128
 * bytes, more than one fd: any fd it sent is closed then). */
int memif_msg_recv(int fd, struct memif_msg *m, int *fd_out, char *why, size_t len);

/* A client's shared memory: a memfd of size bytes, sealed so that it can
 * neither shrink nor grow and keeps its seals (a server may insist on
 * F_SEAL_SHRINK). The fd, or -1 with errno. */
int memif_client_memfd(const char *name, uint64_t size);

/* The client's side of the handshake once HELLO is accepted, all at once:
 * INIT (id, secret, name), the region laid out as l, the s2m and m2s
 * rings of 2^log2 slots with their eventfds, CONNECT. The server answers
 * each but CONNECT with an ACK, then says CONNECTED. 0, or -1 with errno. */
int memif_client_announce(int fd, uint32_t id, const char *secret, const char *name, int region_fd,
			  const struct memif_client_layout *l, uint8_t log2, int s2m_efd,
			  int m2s_efd);

#endif
