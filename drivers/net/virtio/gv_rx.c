/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rx.c - the scalar RX paths on top of the virtqueue core, and their
 * path objects (gv_path.h; TX: gv_tx.c, vector RX: gv_rx_vec.c).
 *
 * RX: simple (one mbuf per packet), mergeable (a packet spans the
 * num_buffers mbufs the device chose), full (a chain of mbufs posted per
 * packet, for large frames without MRG_RXBUF). Refill allocates exactly
 * as many mbufs as there are free descriptors, in bulk.
 *
 * Every burst is compiled once per (ring layout, barrier policy) on the
 * core's inline verbs (gv_vq_burst.h); the port's start installs the
 * copy for its ring (gv_path.c), so a burst has no dispatch and no call
 * into the core. RX buffers of the one-mbuf paths are posted straight from the
 * pool (rte_mempool_get_bulk) and initialised when they come back.
 *
 * The core validates everything the device writes; a queue the device
 * broke returns nothing, logs once, and gives its mbufs back at stop.
 */
#include "gv_offload.h"
#include "gv_rxtx.h"

/*
 * The pool could not give `n` mbufs at once: take fewer (halving), so a
 * pool that is short (or smaller than one refill) still gets its mbufs
 * posted instead of leaving the ring empty. The number taken, maybe 0.
 * raw: straight from the pool (the one-mbuf paths initialise the mbufs
 * when they come back), else reset as rte_pktmbuf_alloc_bulk does.
 */
static uint32_t rx_alloc_fewer(struct rte_mempool *mp, struct rte_mbuf **mb, uint32_t n,
			       bool raw)
{
	while ((n /= 2) != 0)
		if ((raw ? rte_mempool_get_bulk(mp, (void **)mb, n)
			 : rte_pktmbuf_alloc_bulk(mp, mb, n)) == 0)
			return n;
	return 0;
}

/* Post one-mbuf buffers (simple and mergeable paths), raw from the pool. */
static __rte_always_inline void rx_refill_single(struct gv_rxq *rxq, const enum gv_layout L)
{
	struct gv_vq *vq = rxq->q.vq;
	uint32_t room = gvb_num_free(vq);
	const uint64_t front = rxq->front;

	while (room) {
		struct rte_mbuf *mb[GV_BURST_MAX];
		uint32_t n = room < GV_BURST_MAX ? room : GV_BURST_MAX, added;

		if (unlikely(rte_mempool_get_bulk(rxq->mp, (void **)mb, n) != 0)) {
			uint32_t got = rx_alloc_fewer(rxq->mp, mb, n, true);

			rxq->nombuf += n - got;
			if (got == 0)
				break;
			n = got;
		}
		added = gvb_add_rx_obj(vq, (void *const *)mb, n, rxq->addr_off, front,
				       rxq->seg_len, L);
		if (unlikely(added < n)) { /* the device broke the queue */
			rte_mempool_put_bulk(rxq->mp, (void **)(mb + added), n - added);
			break;
		}
		room -= n;
	}
}

/* Next mbuf for a posted chain: a spare one first, else from the pool. */
static struct rte_mbuf *rx_take_mbuf(struct gv_rxq *rxq, struct rte_mbuf **pool, uint32_t *npool)
{
	if (rxq->n_spare) {
		struct rte_mbuf *m = rxq->spare[--rxq->n_spare];

		rte_pktmbuf_reset(m);
		return m;
	}
	return pool[--*npool];
}

/* Post chains of chain_len mbufs (full path, large frames without MRG). */
static __rte_always_inline void rx_refill_chains(struct gv_rxq *rxq, const enum gv_layout L,
						 const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint16_t clen = rxq->chain_len;
	const bool ind = clen > 1 && gv_has(rxq->q.hw, GV_F_RING_INDIRECT_DESC);
	uint32_t chains = gvb_num_free(vq) / (ind ? 1u : clen);

	while (chains) {
		struct rte_mbuf *pool[GV_BURST_MAX];
		uint32_t want = chains * clen, npool;

		want = want > rxq->n_spare ? want - rxq->n_spare : 0;
		if (want > GV_BURST_MAX)
			want = GV_BURST_MAX - GV_BURST_MAX % clen;
		npool = want;
		if (want && rte_pktmbuf_alloc_bulk(rxq->mp, pool, want) != 0) {
			npool = rx_alloc_fewer(rxq->mp, pool, want, false);
			rxq->nombuf += want - npool;
		}
		if (npool + rxq->n_spare < clen) {
			/* Not a chain's worth: keep them (few) for the next refill. */
			while (npool && rxq->n_spare < RTE_DIM(rxq->spare))
				rxq->spare[rxq->n_spare++] = pool[--npool];
			if (npool)
				rte_pktmbuf_free_bulk(pool, npool);
			return;
		}
		while (chains && npool + rxq->n_spare >= clen) {
			struct gv_seg segs[GV_MAX_TX_SEGS];
			struct rte_mbuf *head = NULL, *prev = NULL;

			for (uint16_t k = 0; k < clen; k++) {
				struct rte_mbuf *m = rx_take_mbuf(rxq, pool, &npool);
				const uint16_t off = k ? RTE_PKTMBUF_HEADROOM : rxq->front;

				segs[k].addr = mbuf_addr(m, rxq->addr_off) + off;
				segs[k].len = (uint32_t)m->buf_len - off;
				if (prev)
					prev->next = m;
				else
					head = m;
				prev = m;
			}
			head->nb_segs = clen;
			if (gvb_add(vq, segs, 0, clen, head, ind, L, B) != 0) {
				rte_pktmbuf_free(head);
				if (npool)
					rte_pktmbuf_free_bulk(pool, npool);
				return;
			}
			chains--;
		}
		/* Any left over (a partial chain) waits as spares. */
		while (npool && rxq->n_spare < RTE_DIM(rxq->spare))
			rxq->spare[rxq->n_spare++] = pool[--npool];
		if (npool)
			rte_pktmbuf_free_bulk(pool, npool);
	}
}

static __rte_always_inline void rx_refill(struct gv_rxq *rxq, const enum gv_layout L,
					  const enum gv_barrier B)
{
	if (rxq->chain_len > 1)
		rx_refill_chains(rxq, L, B);
	else
		rx_refill_single(rxq, L);
	kick(&rxq->q, L, B);
}

static __rte_always_inline void rx_finish(struct gv_rxq *rxq, const enum gv_layout L,
					  const enum gv_barrier B)
{
	if (gvb_num_free(rxq->q.vq) >= rxq->refill_thresh)
		rx_refill(rxq, L, B);
	if (unlikely(gvb_broken(rxq->q.vq)))
		gv_queue_broken(&rxq->q, "rx");
}

/*
 * Mergeable buffers. The fast loop takes packets that fit one buffer
 * (num_buffers 1) while no packet is being assembled and no offload is
 * on; anything else goes through the general loop.
 */
static __rte_always_inline uint16_t rx_mrg_t(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					     uint16_t n, const enum gv_layout L,
					     const enum gv_barrier B)
{
	const uint16_t hdr = rxq->hdr_size;
	uint64_t bytes = 0;
	uint16_t nrx = 0;

	while (nrx < n) {
		struct rte_mbuf *bufs[GV_BURST_MAX];
		uint32_t lens[GV_BURST_MAX];
		uint32_t want = (uint32_t)(n - nrx) < GV_BURST_MAX ? (uint32_t)(n - nrx) : GV_BURST_MAX;
		uint32_t got = gvb_get_used(rxq->q.vq, (void **)bufs, lens, want, L, B);
		uint32_t i = 0;

		if (!rxq->mrg_head && !rxq->ol_any) {
			for (; i < got; i++) {
				struct rte_mbuf *m = bufs[i];
				const struct gv_net_hdr *h = rx_hdr(rxq, m);
				const uint32_t len = lens[i] - hdr;

				if (unlikely((h->num_buffers != 1) | (lens[i] <= hdr)))
					break;
				gv_rx_init_mbuf(rxq, m, len);
				bytes += len;
				count_bins(&rxq->q.st, len, (const uint8_t *)(h) + hdr, len);
				pkts[nrx++] = m;
			}
		}
		for (; i < got; i++) {
			struct rte_mbuf *head = gv_rx_mrg_add(rxq, bufs[i], lens[i]);

			if (head) {
				if (rxq->ol_any)
					gv_rx_offload(rxq, head, rx_hdr(rxq, head));
				count_pkt(&rxq->q.st, head);
				pkts[nrx++] = head;
			}
		}
		if (got < want)
			break;
	}
	rxq->q.st.bytes += bytes;
	rxq->q.st.packets += nrx;
	rx_finish(rxq, L, B);
	return nrx;
}

/*
 * A chain came back with a `len`-byte frame after the header: trim it,
 * keep unused mbufs spare. The frame starts after the header in the
 * head (gv_rxtx.h gv_rx_front).
 */
static struct rte_mbuf *rx_trim_chain(struct gv_rxq *rxq, struct rte_mbuf *head, uint32_t len)
{
	struct rte_mbuf *m = head, *last = head;
	uint16_t segs = 0;
	uint32_t left = len;

	head->pkt_len = len;
	head->data_off = (uint16_t)(rxq->front + rxq->hdr_size);
	while (m) {
		struct rte_mbuf *next = m->next;
		uint32_t room = (uint32_t)m->buf_len - m->data_off;

		if (left == 0 && m != head) {
			last->next = NULL;
			m->next = NULL;
			m->nb_segs = 1;
			if (rxq->n_spare < RTE_DIM(rxq->spare))
				rxq->spare[rxq->n_spare++] = m;
			else
				rte_pktmbuf_free_seg(m);
		} else {
			m->data_len = (uint16_t)(left < room ? left : room);
			left -= m->data_len;
			last = m;
			segs++;
		}
		m = next;
	}
	head->nb_segs = segs;
	return head;
}

/*
 * One good packet of rx_single_pkts, its mbuf initialised: its offloads
 * reported and the packet counted (`ol`), or counted by its length; the
 * bytes for the caller to add (0 with `ol`: count_pkt counted them).
 */
static __rte_always_inline uint32_t rx_single_count(struct gv_rxq *rxq, struct rte_mbuf *m,
						    uint16_t hdr, uint32_t len, const bool ol)
{
	if (ol) {
		gv_rx_offload(rxq, m, rx_hdr(rxq, m));
		count_pkt(&rxq->q.st, m);
		return 0;
	}
	count_bins(&rxq->q.st, len, (const uint8_t *)rx_hdr(rxq, m) + hdr, len);
	return len;
}

/*
 * One-mbuf buffers came back (pkts[0..got), raw from the pool): make each
 * a packet in place. The loop runs while every length is good, so a
 * packet stays where get_used put it; a bad one (a length of no more than
 * the header) is dropped and the rest are moved down. `ol`: offloads are
 * on (the full path), reported per packet after the mbuf is initialised,
 * and the packet is counted as the offload left it.
 */
static __rte_always_inline uint16_t rx_single_pkts(struct gv_rxq *rxq, struct rte_mbuf **pkts,
						   const uint32_t *lens, uint16_t got, const bool ol)
{
	const uint16_t hdr = rxq->hdr_size;
	uint64_t bytes = 0;
	uint16_t i, nrx;

	for (i = 0; i < got; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint32_t len = lens[i] - hdr;

		if (unlikely(lens[i] <= hdr))
			break;
		gv_rx_init_mbuf(rxq, m, len);
		bytes += rx_single_count(rxq, m, hdr, len, ol);
	}
	for (nrx = i; i < got; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint32_t len = lens[i] - hdr;

		gv_rx_init_mbuf(rxq, m, lens[i] <= hdr ? 0 : len);
		if (unlikely(lens[i] <= hdr)) {
			rxq->q.st.errors++;
			rte_pktmbuf_free(m);
			continue;
		}
		bytes += rx_single_count(rxq, m, hdr, len, ol);
		pkts[nrx++] = m;
	}
	rxq->q.st.bytes += bytes;
	return nrx;
}

/*
 * One used chain per packet: the simple path (one mbuf, raw from the
 * pool) and the full path as one function specialised by the literal
 * `full`. The full path posts one-mbuf buffers too when a frame fits one
 * mbuf (chain_len 1, decided at start): those take the simple loop, with
 * the offloads if any are on; longer chains of reset mbufs are trimmed
 * to the length.
 */
static __rte_always_inline uint16_t rx_plain_t(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					       uint16_t n, const bool full,
					       const enum gv_layout L, const enum gv_barrier B)
{
	const uint16_t hdr = rxq->hdr_size;
	uint32_t lens[GV_BURST_MAX];
	uint16_t nrx = 0, got;

	if (n > GV_BURST_MAX)
		n = GV_BURST_MAX;
	got = (uint16_t)gvb_get_used(rxq->q.vq, (void **)pkts, lens, n, L, B);
	if (!full || rxq->chain_len == 1) {
		if (full && rxq->ol_any)
			nrx = rx_single_pkts(rxq, pkts, lens, got, true);
		else
			nrx = rx_single_pkts(rxq, pkts, lens, got, false);
	} else {
		for (uint16_t i = 0; i < got; i++) {
			struct rte_mbuf *m = pkts[i];
			const uint32_t len = lens[i] - hdr;

			if (unlikely(lens[i] <= hdr)) {
				rxq->q.st.errors++;
				rte_pktmbuf_free(m);
				continue;
			}
			m = rx_trim_chain(rxq, m, len);
			m->port = rxq->port_id;
			if (rxq->ol_any)
				gv_rx_offload(rxq, m, rx_hdr(rxq, m));
			count_pkt(&rxq->q.st, m);
			pkts[nrx++] = m;
		}
	}
	rxq->q.st.packets += nrx;
	rx_finish(rxq, L, B);
	return nrx;
}

/*
 * A poll that finds nothing (the device returned no buffer): only the
 * refill retry (a ring left short while the pool was dry) and the broken
 * check run, no queue state is written.
 */
static __rte_noinline void rx_finish_idle(struct gv_rxq *rxq, const enum gv_layout L,
					   const enum gv_barrier B)
{
	if (L == GV_LAYOUT_PACKED)
		rx_finish(rxq, GV_LAYOUT_PACKED, B);
	else
		rx_finish(rxq, GV_LAYOUT_SPLIT, B);
}

static __rte_always_inline bool rx_idle(struct gv_rxq *rxq, const enum gv_layout L,
					const enum gv_barrier B)
{
	if (gvb_used_maybe(rxq->q.vq, L))
		return false;
	if (unlikely(gvb_num_free(rxq->q.vq) >= rxq->refill_thresh || gvb_broken(rxq->q.vq)))
		rx_finish_idle(rxq, L, B); /* out of line: the burst's own copy stays lean */
	return true;
}

static __rte_always_inline uint16_t rx_simple_t(void *q, struct rte_mbuf **pkts, uint16_t n,
						const enum gv_layout L, const enum gv_barrier B)
{
	return rx_idle(q, L, B) ? 0 : rx_plain_t(q, pkts, n, false, L, B);
}

static __rte_always_inline uint16_t rx_full_t(void *q, struct rte_mbuf **pkts, uint16_t n,
					      const enum gv_layout L, const enum gv_barrier B)
{
	return rx_idle(q, L, B) ? 0 : rx_plain_t(q, pkts, n, true, L, B);
}

static __rte_always_inline uint16_t rx_mrg_body_t(void *q, struct rte_mbuf **pkts, uint16_t n,
						  const enum gv_layout L, const enum gv_barrier B)
{
	return rx_idle(q, L, B) ? 0 : rx_mrg_t(q, pkts, n, L, B);
}

GV_BURSTS_LB(rx_simple, struct gv_rxq, rx_simple_t)
GV_BURSTS_LB(rx_mrg, struct gv_rxq, rx_mrg_body_t)
GV_BURSTS_LB(rx_full, struct gv_rxq, rx_full_t)

/* The scalar paths' start (port start, restart): the first buffers. */
static int rx_start(struct gv_rxq *rxq)
{
	GV_LB_CALL(rxq->q.hw, rx_refill, rxq);
	return 0;
}

const struct gv_rx_path gv_rx_path_mrg = {
	.p = { .name = "mergeable", .id = GV_RX_MRG, .needs = GV_BIT(GV_NET_F_MRG_RXBUF),
	       .offloads = GV_RX_OFFLOAD_ALL, .cls = GV_FORCE_NONE,
	       .burst = GV_BURSTS_LB_TABLE(rx_mrg) },
	.start = rx_start,
};

const struct gv_rx_path gv_rx_path_simple = {
	.p = { .name = "simple", .id = GV_RX_SIMPLE, .refuses = GV_BIT(GV_NET_F_MRG_RXBUF),
	       .offloads = GV_RX_OFFLOAD_SIMPLE, .one_mbuf = true, .cls = GV_FORCE_SIMPLE,
	       .burst = GV_BURSTS_LB_TABLE(rx_simple) },
	.start = rx_start,
};

const struct gv_rx_path gv_rx_path_full = {
	.p = { .name = "full", .id = GV_RX_FULL, .refuses = GV_BIT(GV_NET_F_MRG_RXBUF),
	       .offloads = GV_RX_OFFLOAD_ALL, .cls = GV_FORCE_FULL,
	       .burst = GV_BURSTS_LB_TABLE(rx_full) },
	.chains = true,
	.start = rx_start,
};

