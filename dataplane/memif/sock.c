/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif's control socket: one 128-byte message at a time, with at most
 * one fd, and what a client makes and says to connect (memif/memif.h).
 * Used by podwired's control channel (ports/memif/ctl.c) and by
 * podwire-bench's memif client.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "memif/memif.h"

int memif_msg_send(int fd, const struct memif_msg *m, int pass_fd)
{
	struct iovec iov = {.iov_base = (void *)m, .iov_len = sizeof(*m)};
	char ctl[CMSG_SPACE(sizeof(int))];
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};

	if (pass_fd >= 0) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass_fd, sizeof(int));
	}
	/* A peer that does not read its socket does not get to block us. */
	return sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -1;
}

int memif_msg_recv(int fd, struct memif_msg *m, int *fd_out, char *why, size_t len)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = {.iov_base = m, .iov_len = sizeof(*m)};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	bool extra = false;
	ssize_t r;

	*fd_out = -1;
	r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0) {
		snprintf(why, len, "the peer hung up%s", r == 0 ? "" : " (connection reset)");
		return -1;
	}
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*fd_out < 0) {
				*fd_out = got;
			} else {
				close(got);
				extra = true;
			}
		}
	}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || r != (ssize_t)sizeof(*m) || extra) {
		snprintf(why, len, "%s",
			 mh.msg_flags & MSG_CTRUNC ? "a message carried more fds than it may"
			 : extra		   ? "a message carried more than one fd"
						   : "a message was not 128 bytes");
		if (*fd_out >= 0)
			close(*fd_out);
		*fd_out = -1;
		return -1;
	}
	return 1;
}

int memif_client_memfd(const char *name, uint64_t size)
{
	int fd = memfd_create(name, MFD_ALLOW_SEALING | MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int memif_client_announce_n(int fd, uint32_t id, const char *secret, const char *name,
			    int region_fd, const struct memif_client_layout *l, uint8_t log2,
			    const int *s2m_efd, const int *m2s_efd)
{
	struct memif_msg m;

	memif_msg_init(&m, id, secret, name);
	if (memif_msg_send(fd, &m, -1) != 0)
		return -1;
	memif_msg_add_region(&m, 0, l->size);
	if (memif_msg_send(fd, &m, region_fd) != 0)
		return -1;
	for (uint16_t k = 0; k < l->n_pairs; k++) {
		memif_msg_add_ring(&m, true, k, 0, memif_client_ring_off(l, true, k), log2);
		if (memif_msg_send(fd, &m, s2m_efd[k]) != 0)
			return -1;
	}
	for (uint16_t k = 0; k < l->n_pairs; k++) {
		memif_msg_add_ring(&m, false, k, 0, memif_client_ring_off(l, false, k), log2);
		if (memif_msg_send(fd, &m, m2s_efd[k]) != 0)
			return -1;
	}
	memif_msg_connect(&m, MEMIF_MSG_CONNECT, name);
	return memif_msg_send(fd, &m, -1);
}

int memif_client_announce(int fd, uint32_t id, const char *secret, const char *name, int region_fd,
			  const struct memif_client_layout *l, uint8_t log2, int s2m_efd,
			  int m2s_efd)
{
	return memif_client_announce_n(fd, id, secret, name, region_fd, l, log2, &s2m_efd,
				       &m2s_efd);
}
