/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The veth kind's own AF_PACKET I/O (the default, "io": "packet"): no
 * ethdev, so no RTE_MAX_ETHPORTS cap and no BPF objects per port. With
 * PACKET_VNET_HDR every frame crosses with its virtio-net header, so a
 * container's GSO super-frame (up to 64 KiB) and its "checksum still to
 * be made" arrive as one frame, and podwired sends them back the same
 * way: the offloads stay on at both ends of the pair.
 *
 * Receive: a TPACKET_V2 ring of VETH_PKT_FRAMES slots of 2048 bytes.
 * tpacket_rcv writes the virtio-net header in front of each frame in the
 * ring ("packet: vnet_hdr support for tpacket_rcv", Linux 4.6 as far as
 * we know: the advisories of CVE-2020-14386, a bounds bug in that code
 * fixed in 5.9, name 4.6 as the first kernel affected; verified on this
 * machine's 6.18, not on older kernels). A frame
 * larger than a slot (a super-frame) comes as a slot flagged
 * TP_STATUS_COPY, cut short, and whole on the socket's queue, in ring
 * order (PACKET_COPY_THRESH): it is read with recvmsg into a chain of
 * mbufs. TPACKET_V3 is not used: it hands a block over only when the
 * block is full or its timeout (>= 1 ms) passed, which is latency a
 * ping or a request-response pays on every frame.
 *
 * Transmit: sendmmsg of the burst, each frame a virtio-net header and
 * its mbuf's segments (the kernel copies them: the mbufs are freed at
 * once). PACKET_QDISC_BYPASS: a veth has no queue to go through anyway.
 *
 * Memory per port: the ring (VETH_PKT_FRAMES * 2048 bytes, in pages the
 * kernel allocates and podwired maps), the socket's queue while
 * super-frames wait in it (up to VETH_PKT_SOCKBUF), and one fd.
 */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_memcpy.h>

#include "core/limits.h"
#include "core/log.h"
#include "datapath/stats.h"
#include "offload/offload.h"
#include "ports/veth/veth.h"

PW_LOG_TYPE("veth");

/* 256 slots hold a burst of 256 frames, or 256 super-frames flagged in
 * the ring (16 MiB of TCP): 512 KiB of ring per port. */
#define VETH_PKT_FRAMES 256
#define VETH_PKT_FRAME	2048
/* The socket's receive queue holds the super-frames the ring flags
 * (tpacket_rcv queues one only while the queue is below this), and its
 * send queue the frames sent and not yet through the veth: 64 frames of
 * 64 KiB each way. Charged only while frames are in them. */
#define VETH_PKT_SOCKBUF (4 << 20)
/* iovecs of one sendmmsg: a header and the segments of each frame. */
#define VETH_TX_IOV 1024

static int set_opt(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val)) == 0 ? 0 : -errno;
}

void veth_packet_close(struct veth_pkt *k)
{
	if (k->ring != NULL && k->ring != MAP_FAILED)
		munmap(k->ring, k->ring_len);
	k->ring = NULL;
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

int veth_packet_open(struct port *p, struct veth_pkt *k, unsigned int ifindex, char *msg,
		     size_t len)
{
	/* In this order: the header and the version before the ring (the
	 * kernel refuses either once a ring is there). */
	static const struct {
		int level, opt, val;
		const char *name;
		bool needed;
	} opts[] = {
	    {SOL_PACKET, PACKET_VERSION, TPACKET_V2, "PACKET_VERSION TPACKET_V2", true},
	    {SOL_PACKET, PACKET_VNET_HDR, 1, "PACKET_VNET_HDR", true},
	    {SOL_PACKET, PACKET_COPY_THRESH, 1, "PACKET_COPY_THRESH", true},
	    /* What the host's own stack sends out of the host end (IPv6
	     * neighbour discovery) is not the container's. */
	    {SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING", false},
	    {SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS", false},
	    /* A VLAN tag the kernel took off a super-frame read with recvmsg. */
	    {SOL_PACKET, PACKET_AUXDATA, 1, "PACKET_AUXDATA", true},
	    {SOL_SOCKET, SO_RCVBUFFORCE, VETH_PKT_SOCKBUF, "SO_RCVBUFFORCE", false},
	    {SOL_SOCKET, SO_SNDBUFFORCE, VETH_PKT_SOCKBUF, "SO_SNDBUFFORCE", false},
	};
	long page = sysconf(_SC_PAGESIZE);
	struct tpacket_req req = {
	    .tp_block_size = (unsigned int)RTE_MAX(page, (long)VETH_PKT_FRAME),
	    .tp_frame_size = VETH_PKT_FRAME,
	    .tp_frame_nr = VETH_PKT_FRAMES,
	};
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_ALL),
	    .sll_ifindex = (int)ifindex,
	};
	const char *step = "open a packet socket";
	int rc = 0;

	memset(k, 0, sizeof(*k));
	/* Protocol 0: no frame is queued before the ring is there. */
	k->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (k->fd < 0)
		rc = -errno;
	for (size_t i = 0; rc == 0 && i < RTE_DIM(opts); i++) {
		int r = set_opt(k->fd, opts[i].level, opts[i].opt, opts[i].val);

		if (r != 0 && opts[i].needed) {
			step = opts[i].name;
			rc = r;
		} else if (r != 0) {
			PORT_LOG(p, INFO, "%s: %s (going on without it)", opts[i].name,
				 strerror(-r));
		}
	}
	if (rc == 0) {
		req.tp_block_nr = req.tp_frame_nr / (req.tp_block_size / req.tp_frame_size);
		k->frames = req.tp_frame_nr;
		k->frame_size = req.tp_frame_size;
		k->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
		step = "PACKET_RX_RING";
		if (setsockopt(k->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) != 0)
			rc = -errno;
	}
	if (rc == 0) {
		step = "mmap its ring";
		k->ring = mmap(NULL, k->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			       k->fd, 0);
		if (k->ring == MAP_FAILED)
			rc = -errno;
	}
	if (rc == 0) {
		step = "bind it to the interface";
		if (bind(k->fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)
			rc = -errno;
	}
	if (rc != 0) {
		snprintf(msg, len,
			 "port \"%s\": cannot read \"%s\" with AF_PACKET (%s: %s); podwired needs "
			 "CAP_NET_RAW, or try \"io\": \"xdp\"",
			 p->conf.name, p->conf.iface, step, strerror(-rc));
		veth_packet_close(k);
		return rc;
	}
	return 0;
}

uint64_t veth_packet_kernel_drops(struct veth_pkt *k)
{
	struct tpacket_stats st;
	socklen_t l = sizeof(st);

	/* Reading resets the kernel's counters: they are added up here. */
	if (k->fd >= 0 && getsockopt(k->fd, SOL_PACKET, PACKET_STATISTICS, &st, &l) == 0)
		k->drops += st.tp_drops;
	return k->drops + __atomic_load_n(&k->truncated, __ATOMIC_RELAXED);
}

/* The kernel takes a VLAN tag off every frame before a packet socket sees
 * it (skb_vlan_untag); the virtio-net header's offsets count the tag, so
 * it goes back where it was. */
static int vlan_put(struct rte_mbuf *m, uint32_t status, uint16_t tpid, uint16_t tci)
{
	uint8_t *old = rte_pktmbuf_mtod(m, uint8_t *), *p;
	rte_be16_t w[2];

	if (m->data_len < 2 * RTE_ETHER_ADDR_LEN)
		return -EINVAL;
	p = (uint8_t *)rte_pktmbuf_prepend(m, 4);
	if (p == NULL)
		return -ENOMEM;
	memmove(p, old, 2 * RTE_ETHER_ADDR_LEN);
	w[0] = rte_cpu_to_be_16(
	    (status & TP_STATUS_VLAN_TPID_VALID) && tpid != 0 ? tpid : RTE_ETHER_TYPE_VLAN);
	w[1] = rte_cpu_to_be_16(tci);
	memcpy(p + 2 * RTE_ETHER_ADDR_LEN, w, sizeof(w));
	return 0;
}

/* A frame that fits its slot: copied into one mbuf. 0 with *out (NULL:
 * nothing to deliver), or -ENOMEM (the slot stays, for the next poll). */
static int rx_slot(struct veth_pkt *k, const struct tpacket2_hdr *h, uint32_t status,
		   struct rte_mbuf **out, struct virtio_net_hdr *vh)
{
	const struct sockaddr_ll *sll =
	    (const void *)((const uint8_t *)h + TPACKET_ALIGN(sizeof(*h)));
	const uint8_t *data = (const uint8_t *)h + h->tp_mac;
	struct rte_mbuf *m;

	*out = NULL;
	if (unlikely(sll->sll_pkttype == PACKET_OUTGOING))
		return 0;
	/* Cut to the slot and not queued whole (the socket's queue was
	 * full): lost on the way, as a full ring loses it. */
	if (unlikely(h->tp_snaplen < h->tp_len || h->tp_mac < sizeof(*vh) ||
		     h->tp_mac + h->tp_snaplen > k->frame_size)) {
		k->truncated++;
		return 0;
	}
	m = rte_pktmbuf_alloc(pw_mbuf_pool);
	if (unlikely(m == NULL))
		return -ENOMEM;
	memcpy(vh, data - sizeof(*vh), sizeof(*vh));
	rte_memcpy(rte_pktmbuf_mtod(m, void *), data, h->tp_snaplen);
	m->data_len = (uint16_t)h->tp_snaplen;
	m->pkt_len = h->tp_snaplen;
	if (unlikely(status & TP_STATUS_VLAN_VALID) &&
	    vlan_put(m, status, h->tp_vlan_tpid, h->tp_vlan_tci) != 0) {
		rte_pktmbuf_free(m);
		k->truncated++;
		return 0;
	}
	*out = m;
	return 0;
}

/* A frame flagged TP_STATUS_COPY: read whole from the socket's queue
 * into a chain of mbufs (enough for the largest frame; those left over go
 * back to the pool at once, so that an idle port holds none). Same
 * returns as rx_slot. */
static int rx_whole(struct veth_pkt *k, struct rte_mbuf **out, struct virtio_net_hdr *vh)
{
	struct rte_mbuf *seg[VETH_PKT_SEGS], *prev = NULL;
	struct iovec iov[1 + VETH_PKT_SEGS];
	union {
		struct cmsghdr c;
		char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct sockaddr_ll sll;
	struct msghdr mh = {
	    .msg_name = &sll,
	    .msg_namelen = sizeof(sll),
	    .msg_iov = iov,
	    .msg_iovlen = RTE_DIM(iov),
	    .msg_control = &ctl,
	    .msg_controllen = sizeof(ctl),
	};
	struct rte_mbuf *m;
	struct cmsghdr *c;
	uint32_t left;
	uint16_t used = 0;
	ssize_t r;

	*out = NULL;
	if (rte_pktmbuf_alloc_bulk(pw_mbuf_pool, seg, VETH_PKT_SEGS) != 0)
		return -ENOMEM;
	iov[0] = (struct iovec){vh, sizeof(*vh)};
	for (unsigned int i = 0; i < VETH_PKT_SEGS; i++)
		iov[1 + i] =
		    (struct iovec){rte_pktmbuf_mtod(seg[i], void *), rte_pktmbuf_tailroom(seg[i])};
	r = recvmsg(k->fd, &mh, MSG_DONTWAIT);
	/* Nothing queued for a flagged slot, or a frame larger than 64 KiB:
	 * lost on the way. One of our own: not for us. */
	if (unlikely(r <= (ssize_t)sizeof(*vh) || (mh.msg_flags & MSG_TRUNC) != 0 ||
		     sll.sll_pkttype == PACKET_OUTGOING)) {
		if (r <= (ssize_t)sizeof(*vh) || (mh.msg_flags & MSG_TRUNC) != 0)
			k->truncated++;
		rte_pktmbuf_free_bulk(seg, VETH_PKT_SEGS);
		return 0;
	}
	left = (uint32_t)r - sizeof(*vh);
	m = seg[0];
	m->pkt_len = left;
	while (left != 0) {
		struct rte_mbuf *s = seg[used++];

		s->data_len = (uint16_t)RTE_MIN(left, (uint32_t)rte_pktmbuf_tailroom(s));
		left -= s->data_len;
		if (prev != NULL)
			prev->next = s;
		prev = s;
	}
	m->nb_segs = used;
	if (used < VETH_PKT_SEGS)
		rte_pktmbuf_free_bulk(seg + used, VETH_PKT_SEGS - used);
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
		const struct tpacket_auxdata *aux = (const void *)CMSG_DATA(c);

		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
		    (aux->tp_status & TP_STATUS_VLAN_VALID) &&
		    vlan_put(m, aux->tp_status, aux->tp_vlan_tpid, aux->tp_vlan_tci) != 0) {
			rte_pktmbuf_free(m);
			k->truncated++;
			return 0;
		}
	}
	*out = m;
	return 0;
}

uint16_t veth_packet_rx(struct veth_pkt *k, struct rte_mbuf **pkts, uint16_t n,
			struct port_counters *pc)
{
	uint16_t got = 0;

	while (got < n) {
		struct tpacket2_hdr *h = (void *)(k->ring + (size_t)k->next * k->frame_size);
		uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		struct virtio_net_hdr vh;
		struct rte_mbuf *m;
		int rc;

		if ((status & TP_STATUS_USER) == 0)
			break;
		if (status & TP_STATUS_COPY)
			rc = rx_whole(k, &m, &vh);
		else
			rc = rx_slot(k, h, status, &m, &vh);
		if (unlikely(rc != 0))
			break;
		/* The slot goes back to the kernel once read (release: after
		 * the copy). */
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		k->next = k->next + 1 == k->frames ? 0 : k->next + 1;
		if (m == NULL)
			continue;
		/* Most frames ask for nothing (DATA_VALID alone says the
		 * kernel checked the sum: nothing to carry). */
		if ((vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0 ||
		    vh.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
			if (unlikely(offload_from_vnet(m, &vh) != 0)) {
				rte_pktmbuf_free(m);
				pc->drops[DROP_BAD_OFFLOAD]++;
				continue;
			}
		}
		pkts[got++] = m;
	}
	return got;
}

uint16_t veth_packet_tx(struct veth_pkt *k, struct rte_mbuf **pkts, uint16_t n)
{
	struct virtio_net_hdr vh[PW_BURST];
	struct mmsghdr mm[PW_BURST];
	struct iovec iov[VETH_TX_IOV];
	unsigned int used = 0;
	uint16_t ready, sent = 0;

	n = RTE_MIN(n, (uint16_t)PW_BURST);
	for (ready = 0; ready < n; ready++) {
		const struct rte_mbuf *m = pkts[ready];

		if (used + 1u + m->nb_segs > VETH_TX_IOV)
			break;
		offload_to_vnet(m, &vh[ready]);
		memset(&mm[ready], 0, sizeof(mm[ready]));
		mm[ready].msg_hdr.msg_iov = &iov[used];
		mm[ready].msg_hdr.msg_iovlen = 1u + m->nb_segs;
		iov[used++] = (struct iovec){&vh[ready], sizeof(vh[ready])};
		for (const struct rte_mbuf *s = m; s != NULL; s = s->next)
			iov[used++] = (struct iovec){rte_pktmbuf_mtod(s, void *), s->data_len};
	}
	while (sent < ready) {
		int r = sendmmsg(k->fd, mm + sent, ready - sent, MSG_DONTWAIT);

		if (r > 0) {
			sent += (uint16_t)r;
			continue;
		}
		/* Full (the datapath tries again, then counts tx_full), or the
		 * interface is going: not sent. */
		if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR || errno == ENETDOWN ||
		    errno == ENXIO || errno == ENODEV)
			break;
		/* The kernel refuses this frame itself (EMSGSIZE, EINVAL: a
		 * header it cannot take): trying again would not help. It is
		 * dropped and counted; poll_link says so. */
		k->tx_errors++;
		k->tx_errno = errno;
		sent++;
	}
	if (sent != 0)
		rte_pktmbuf_free_bulk(pkts, sent);
	return sent;
}
