/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rxtx.h - what the RX (gv_rx.c) and TX (gv_tx.c) bursts share:
 * mbuf addresses, the per-queue packet counters, the notification
 * decision, a returned RX buffer made a packet, the RX header's place.
 */
#ifndef GV_RXTX_H
#define GV_RXTX_H

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "gv_path.h"
#include "gv_queue.h"
#include "gv_vq_burst.h"

static __rte_always_inline uint64_t mbuf_addr(const struct rte_mbuf *m, uint32_t off)
{
	return *(const uint64_t *)((const char *)m + off);
}

/* The RFC 2819 size bin of one packet of `len` bytes. */
static __rte_always_inline void count_size(struct gv_qstats *st, uint32_t len)
{
	unsigned int bin;

	if (unlikely(len > 1518))
		bin = 7;
	else if (unlikely(len < 64))
		bin = 0;
	else if (len == 64)
		bin = 1;
	else
		bin = (unsigned int)(31 - __builtin_clz(len)) - 4;
	st->size_bins[bin]++;
}

/* Multicast or broadcast, from a packet's first data_len bytes at data. */
static __rte_always_inline void count_l2(struct gv_qstats *st, const uint8_t *data,
					 uint32_t data_len)
{
	/* Group bit of the destination: one byte; the rest only when set. */
	if (unlikely(data[0] & 1) && data_len >= RTE_ETHER_ADDR_LEN) {
		if (rte_is_broadcast_ether_addr((const struct rte_ether_addr *)data))
			st->broadcast++;
		else
			st->multicast++;
	}
}

/*
 * Size bin and multicast/broadcast of one packet (bytes are the
 * caller's: summed in a register over a burst). The vector RX paths
 * count only the size (gv_rx_vec.h): the destination is a read of the
 * packet, a cache miss when the device's core wrote it.
 */
static __rte_always_inline void count_bins(struct gv_qstats *st, uint32_t len,
					   const uint8_t *data, uint32_t data_len)
{
	count_size(st, len);
	count_l2(st, data, data_len);
}

static __rte_always_inline void count_pkt(struct gv_qstats *st, const struct rte_mbuf *m)
{
	st->bytes += m->pkt_len;
	count_bins(st, m->pkt_len, rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
}

static __rte_always_inline void kick(struct gv_queue *q, const enum gv_layout L,
				      const enum gv_barrier B)
{
	if (gvb_kick_prepare(q->vq, L, B)) {
		gv_ops(q->hw)->notify(q->hw, q);
		q->st.kicks++;
	}
}

/*
 * A one-mbuf buffer came back: make it a fresh packet mbuf. Posted mbufs
 * come raw from the pool, where refcnt is 1, next NULL and nb_segs 1
 * (DPDK's invariants for free mbufs); data_off, refcnt, nb_segs and port
 * are one 64-bit store (rearm_data), flags and packet type the next.
 */
static_assert(offsetof(struct rte_mbuf, pkt_len) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 4, "mbuf layout");
static_assert(offsetof(struct rte_mbuf, data_len) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 8, "mbuf layout");
static_assert(offsetof(struct rte_mbuf, vlan_tci) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 10, "mbuf layout");

static __rte_always_inline void gv_rx_init_mbuf(const struct gv_rxq *rxq, struct rte_mbuf *m,
						uint32_t len)
{
	/* packet_type 0 and pkt_len; data_len and vlan_tci 0. */
	const uint64_t type_len = (uint64_t)len << 32;
	const uint32_t dlen_vlan = (uint16_t)len;

	memcpy((char *)m + offsetof(struct rte_mbuf, rearm_data), &rxq->mbuf_rearm, 8);
	m->ol_flags = rxq->mbuf_ol;
	memcpy((char *)m + offsetof(struct rte_mbuf, rx_descriptor_fields1), &type_len, 8);
	memcpy((char *)m + offsetof(struct rte_mbuf, rx_descriptor_fields1) + 8, &dlen_vlan, 4);
}

/*
 * Where an RX buffer goes in its mbuf: rxq->front (gv_queue.c rxq_prepare) to the
 * end of the data room; a packet's first buffer starts with the
 * virtio-net header and the frame follows it. Two places, by one
 * question: must TX write into the header's bytes when the application
 * forwards the packet?
 *
 * DPDK's vhost (and any device that writes a field only where it
 * differs) reads each header field before writing it. That load stalls
 * when the line was last written, or read, on the driver's core; stores
 * (the frame's copy) do not stall. So the header wants a line the
 * driver's core leaves alone, and a forwarded packet's TX header wants
 * a line the application has written anyway.
 *
 * - Mergeable buffers: the device writes num_buffers (1 or more) and a
 *   forwarded packet's TX header must carry 0 there (a spec MUST), so
 *   TX writes the header's line on every forwarded packet. The header
 *   shares the frame's first line (front RTE_PKTMBUF_HEADROOM, the frame
 *   after the header): the line TX writes is one the application wrote,
 *   and the device moves one line per packet, not two. The frame then
 *   starts 12 bytes past a 16-byte boundary, where DPDK's vhost copies
 *   a 1518-byte frame on a split ring in about a third of the time it
 *   takes at 128 (perf profiles of the back-end's copy). The cost: when
 *   the application only reads its packets, the device's header loads
 *   find the frame's line on the driver's core.
 * - Otherwise the header the device leaves is all zero (no offloads),
 *   TX finds it zero and writes nothing (gv_tx.h hdr_zero), and the
 *   header takes the end of the headroom's last line (front
 *   RTE_PKTMBUF_HEADROOM minus the header; the frame at
 *   RTE_PKTMBUF_HEADROOM, as DPDK's PMD does): no driver store touches
 *   that line, and only TX's check of a forwarded packet loads it.
 *   Large frames are copied at DPDK's PMD's pace, not faster: no offset
 *   off the 16-byte boundary keeps the header's fields out of the
 *   frame's line. A
 *   device that writes num_buffers 1 here too (the spec asks it of
 *   VERSION_1 devices) makes TX store the 0 back: correct, one line more.
 *
 * Those are the defaults; the devarg rx_hdr_line=shared|own picks either
 * layout for a port whatever the features: own for an application that
 * reads what it receives and does not send it back out (guest RX at
 * 64 B on the scalar paths, docs/performance.md), shared for one that forwards
 * large frames without mergeable buffers on a split ring.
 *
 * Later buffers of a packet (mergeable buffers, chains) hold data from
 * their first byte: mergeable ones posted at rxq->front, a chain's at
 * RTE_PKTMBUF_HEADROOM (its mbufs come reset from the pool).
 */
static_assert(RTE_PKTMBUF_HEADROOM >= sizeof(struct gv_net_hdr_hash),
	      "the headroom holds the largest virtio-net header");

static inline uint16_t gv_rx_front(uint16_t hdr_size, bool shared)
{
	return (uint16_t)(shared ? RTE_PKTMBUF_HEADROOM : RTE_PKTMBUF_HEADROOM - hdr_size);
}

/* The virtio-net header of a packet's first buffer (the device wrote it). */
static __rte_always_inline const struct gv_net_hdr *rx_hdr(const struct gv_rxq *rxq,
							    const struct rte_mbuf *m)
{
	return (const struct gv_net_hdr *)((char *)m->buf_addr + rxq->front);
}

/*
 * Mergeable buffers, one returned buffer at a time (the mergeable path's
 * general loop, and the vector paths' one-by-one loop): a packet's first
 * buffer says in its header how many buffers the packet has; the rest
 * are chained to it (their data starts at the buffer's start). The
 * packet once its last buffer is in (offloads and counters are the
 * caller's), else NULL. A first buffer with no data or with num_buffers
 * 0 or beyond GV_MAX_MRG_BUFS is an error, freed alone.
 */
static __rte_always_inline struct rte_mbuf *gv_rx_mrg_add(struct gv_rxq *rxq, struct rte_mbuf *m,
							  uint32_t len)
{
	const uint16_t hdr = rxq->hdr_size;
	struct rte_mbuf *head = rxq->mrg_head;

	if (!head) {
		/* Only where the device wrote a header (no read of a runt's stale bytes). */
		const uint16_t nb =
			len > hdr ? *(const volatile uint16_t *)&rx_hdr(rxq, m)->num_buffers : 0;

		if (unlikely(nb == 0 || nb > GV_MAX_MRG_BUFS)) {
			rxq->q.st.errors++;
			gv_rx_init_mbuf(rxq, m, 0);
			rte_pktmbuf_free(m);
			return NULL;
		}
		gv_rx_init_mbuf(rxq, m, len - hdr);
		rxq->mrg_head = rxq->mrg_tail = m;
		rxq->mrg_left = (uint16_t)(nb - 1);
	} else {
		gv_rx_init_mbuf(rxq, m, len);
		m->data_off = rxq->front;
		rxq->mrg_tail->next = m;
		rxq->mrg_tail = m;
		head->nb_segs++;
		head->pkt_len += len;
		rxq->mrg_left--;
	}
	if (rxq->mrg_left != 0)
		return NULL;
	head = rxq->mrg_head;
	rxq->mrg_head = NULL;
	return head;
}

#endif /* GV_RXTX_H */
