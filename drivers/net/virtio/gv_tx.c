/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_tx.c - the TX burst functions: simple (one descriptor per packet,
 * header pushed into the headroom), in-order (simple, reclaiming without
 * reading used entries), full (multi-segment chains, indirect tables when
 * negotiated, offloads). One copy per (ring layout, barrier policy) on the
 * core's inline verbs, as the RX bursts (gv_rx.c). Sent mbufs are
 * freed in bulk, inline; rte_eth_tx_done_cleanup frees them on demand.
 * The three paths' objects (gv_path.h) are at the end. The vector path
 * is gv_tx_vec.c; what both share is gv_tx.h.
 */
#include <rte_pause.h>

#include "gv_offload.h"
#include "gv_tx.h"

/*
 * Take back sent chains, GV_BURST_MAX at a time, until `need` slots are
 * free, `max` chains are taken, or none is left to take; how many were
 * taken. Not all that the device returned: when the application sets
 * the pace (small bursts into a big ring), the device returns nearly the
 * whole ring between two reclaims, and freeing it at once would push
 * thousands of mbufs through the pool, out of the pool's cache and out of
 * the CPU's, just before the application takes them again (ring 4096,
 * burst 1: testpmd's rte_pktmbuf_reset, the first touch of each mbuf,
 * took 15% of the samples, PERF=1 bench/pmd_compare.sh). A slice at a time, the mbufs freed
 * are the next ones allocated, still in cache.
 */
static __rte_always_inline uint32_t tx_reclaim(struct gv_txq *txq, uint32_t need, uint32_t max,
					       const bool in_order, const enum gv_layout L,
					       const enum gv_barrier B)
{
	void *ck[GV_BURST_MAX];
	uint32_t lens[GV_BURST_MAX];
	uint32_t done = 0, want, got;

	do {
		want = RTE_MIN(max - done, (uint32_t)GV_BURST_MAX);
		got = in_order ? gvb_reclaim_in_order(txq->q.vq, ck, want, L, B)
			       : gvb_get_used(txq->q.vq, ck, lens, want, L, B);
		if (got)
			tx_free((struct rte_mbuf **)ck, got);
		done += got;
	} while (got == want && done < max && gvb_num_free(txq->q.vq) < need);
	return done;
}

/* The header can go into the packet's own headroom. */
static __rte_always_inline bool can_push(const struct rte_mbuf *m, uint16_t hdr)
{
	return rte_pktmbuf_headroom(m) >= hdr && RTE_MBUF_DIRECT(m) &&
	       rte_mbuf_refcnt_read(m) == 1;
}

/*
 * Copy a header of `hdr` bytes (10, 12 or 20) from `src` (20 bytes
 * readable) with fixed-size moves: no call, no byte loop.
 */
static __rte_always_inline void hdr_put(void *dst, const void *src, uint16_t hdr)
{
	uint64_t a, b, c;

	memcpy(&a, src, 8);
	memcpy(&c, (const char *)src + hdr - 8, 8);
	if (unlikely(hdr > 16)) {
		memcpy(&b, (const char *)src + 8, 8);
		memcpy((char *)dst + 8, &b, 8);
	}
	memcpy(dst, &a, 8);
	memcpy((char *)dst + hdr - 8, &c, 8);
}

/*
 * Post one packet as a chain: header (pushed, or in a small mbuf from the
 * packet's pool when there is no room), then every segment. 0: posted;
 * -ENOSPC: no room now (nothing changed); other: the packet cannot be
 * sent (the caller drops it).
 */
static __rte_always_inline int tx_post_chain(struct gv_txq *txq, struct rte_mbuf *m,
					     const enum gv_layout L, const enum gv_barrier B)
{
	const uint16_t hdr = txq->hdr_size;
	struct gv_seg segs[GV_MAX_TX_SEGS + 1];
	struct rte_mbuf *cookie = m, *h = NULL;
	uint16_t n = 0;
	int ret;
	union {
		struct gv_net_hdr h;
		uint8_t b[sizeof(struct gv_net_hdr_hash)];
	} vh = { .b = { 0 } };

	if (unlikely(m->nb_segs > GV_MAX_TX_SEGS))
		return -EINVAL;
	gv_tx_fill_hdr(&vh.h, m);
	if (can_push(m, hdr)) {
		hdr_put(rte_pktmbuf_mtod_offset(m, char *, -(int)hdr), vh.b, hdr);
		segs[n].addr = mbuf_addr(m, txq->addr_off) + m->data_off - hdr;
		segs[n++].len = (uint32_t)m->data_len + hdr;
		m = m->next;
	} else {
		h = rte_pktmbuf_alloc(tx_data_pool(m));
		if (!h)
			return -ENOMEM;
		if (unlikely(rte_pktmbuf_tailroom(h) < hdr)) { /* a pool without data room */
			rte_pktmbuf_free(h);
			return -EINVAL;
		}
		hdr_put(rte_pktmbuf_mtod(h, char *), vh.b, hdr);
		segs[n].addr = mbuf_addr(h, txq->addr_off) + h->data_off;
		segs[n++].len = hdr;
		h->next = m;
		cookie = h;
	}
	for (; m; m = m->next) {
		if (m->data_len == 0)
			continue;
		segs[n].addr = mbuf_addr(m, txq->addr_off) + m->data_off;
		segs[n++].len = m->data_len;
	}
	ret = gvb_add(txq->q.vq, segs, n, 0, cookie, txq->indirect && n > 1, L, B);
	if (ret && h) {
		h->next = NULL;
		rte_pktmbuf_free(h);
	}
	return ret;
}

/*
 * Reclaim the way the path posts: in order on the in-order path, and on
 * the full path when the queue negotiated IN_ORDER.
 */
static __rte_always_inline uint32_t tx_reclaim_q(struct gv_txq *txq, uint32_t need, uint32_t max,
						 const bool in_order, const bool full,
						 const enum gv_layout L, const enum gv_barrier B)
{
	if (!full)
		return tx_reclaim(txq, need, max, in_order, L, B);
	if (txq->in_order)
		return tx_reclaim(txq, need, max, true, L, B);
	return tx_reclaim(txq, need, max, false, L, B);
}

/*
 * The simple, in-order and full paths. Packets that fit one descriptor
 * with a zero header (one segment, room for the header, direct, not
 * shared; on the full path also no offload asked for) are posted in
 * batches; any other packet goes as a chain (tx_post_chain), which on the
 * full path carries its offloads.
 */
static __rte_always_inline uint16_t tx_simple_t(struct gv_txq *txq, struct rte_mbuf **pkts,
						uint16_t n, const bool in_order, const bool full,
						const enum gv_layout L, const enum gv_barrier B)
{
	struct gv_vq *vq = txq->q.vq;
	const uint16_t hdr = txq->hdr_size;
	const uint32_t addr_off = txq->addr_off;
	uint64_t bytes = 0;
	uint16_t sent = 0;

	if (gvb_num_free(vq) < txq->free_thresh || gvb_num_free(vq) < n)
		tx_reclaim_q(txq, RTE_MAX((uint32_t)n, txq->free_thresh), UINT32_MAX, in_order,
			     full, L, B);
	while (sent < n) {
		struct gv_seg segs[GV_BURST_MAX];
		void *ck[GV_BURST_MAX];
		uint32_t room = gvb_num_free(vq), k = 0, want = n - sent, added;

		if (want > GV_BURST_MAX)
			want = GV_BURST_MAX;
		if (want > room)
			want = room;
		if (want == 0)
			break;
		for (uint32_t i = 0; i < want; i++) {
			struct rte_mbuf *m = pkts[sent + i];
			char *data;

			if (unlikely(!tx_simple_ok(m, hdr, full))) {
				/* Post what we have, then this one as a chain. */
				int ret;
				uint32_t added = gvb_add_burst(vq, segs, ck, k, false, L);

				txq->q.st.packets += added;
				if (unlikely(added < k)) { /* broken: the rest stay the app's */
					sent += added;
					goto out;
				}
				ret = tx_post_chain(txq, m, L, B);
				if (full && ret == -ENOSPC) {
					tx_reclaim_q(txq, UINT32_MAX, UINT32_MAX, in_order, full,
						     L, B);
					ret = tx_post_chain(txq, m, L, B);
				}
				if (ret == -ENOSPC || ret == -ENOMEM || ret == -EIO) {
					sent += i;
					goto out;
				}
				if (ret) { /* cannot be sent: dropped */
					txq->q.st.errors++;
					rte_pktmbuf_free(m);
				} else {
					count_pkt(&txq->q.st, m);
					txq->q.st.packets++;
				}
				/* It may have taken several slots: recount the room. */
				sent += i + 1;
				goto next_round;
			}
			data = rte_pktmbuf_mtod(m, char *);
			hdr_zero(data - hdr, hdr);
			segs[k].addr = mbuf_addr(m, addr_off) + m->data_off - hdr;
			segs[k].len = (uint32_t)m->data_len + hdr;
			ck[k++] = m;
			bytes += m->pkt_len;
			count_bins(&txq->q.st, m->pkt_len, (const uint8_t *)data, m->data_len);
		}
		added = gvb_add_burst(vq, segs, ck, k, false, L);
		txq->q.st.packets += added;
		if (unlikely(added < k)) { /* broken: the rest stay the app's */
			sent += added;
			break;
		}
		sent += want;
next_round:;
	}
out:
	txq->q.st.bytes += bytes;
	kick(&txq->q, L, B);
	if (unlikely(gvb_broken(vq)))
		gv_queue_broken(&txq->q, "tx");
	return sent;
}

static __rte_always_inline uint16_t tx_simple_body_t(void *q, struct rte_mbuf **pkts, uint16_t n,
						     const enum gv_layout L, const enum gv_barrier B)
{
	return tx_simple_t(q, pkts, n, false, false, L, B);
}

static __rte_always_inline uint16_t tx_inorder_body_t(void *q, struct rte_mbuf **pkts,
						      uint16_t n, const enum gv_layout L,
						      const enum gv_barrier B)
{
	return tx_simple_t(q, pkts, n, true, false, L, B);
}

static __rte_always_inline uint16_t tx_full_body_t(void *q, struct rte_mbuf **pkts, uint16_t n,
						   const enum gv_layout L, const enum gv_barrier B)
{
	return tx_simple_t(q, pkts, n, false, true, L, B);
}

GV_BURSTS_LB(tx_simple, struct gv_txq, tx_simple_body_t)
GV_BURSTS_LB(tx_inorder, struct gv_txq, tx_inorder_body_t)
GV_BURSTS_LB(tx_full, struct gv_txq, tx_full_body_t)

/*
 * A path's sends and reclaims on a queue the caller holds (the link
 * announcement, rte_eth_tx_done_cleanup): its body and reclaim, run with
 * the queue's layout and barrier policy.
 */
#define TX_HELD_OPS(name, in_order, full)                                      \
	static uint16_t name##_owned(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n) \
	{                                                                      \
		return GV_LB_CALL(txq->q.hw, tx_simple_t, txq, pkts, n, in_order, full); \
	}                                                                      \
	static uint32_t name##_cleanup(struct gv_txq *txq, uint32_t max)       \
	{                                                                      \
		return GV_LB_CALL(txq->q.hw, tx_reclaim_q, txq, UINT32_MAX, max, in_order, full); \
	}

TX_HELD_OPS(tx_simple, false, false)
TX_HELD_OPS(tx_inorder, true, false)
TX_HELD_OPS(tx_full, false, true)

const struct gv_tx_path gv_tx_path_simple = {
	.p = { .name = "simple", .id = GV_TX_SIMPLE, .refuses = GV_BIT(GV_F_IN_ORDER),
	       .cls = GV_FORCE_SIMPLE, .burst = GV_BURSTS_LB_TABLE(tx_simple) },
	.owned = tx_simple_owned,
	.cleanup = tx_simple_cleanup,
};

const struct gv_tx_path gv_tx_path_inorder = {
	.p = { .name = "inorder", .id = GV_TX_INORDER, .needs = GV_BIT(GV_F_IN_ORDER),
	       .cls = GV_FORCE_INORDER, .burst = GV_BURSTS_LB_TABLE(tx_inorder) },
	.owned = tx_inorder_owned,
	.cleanup = tx_inorder_cleanup,
};

const struct gv_tx_path gv_tx_path_full = {
	.p = { .name = "full", .id = GV_TX_FULL, .offloads = GV_TX_OFFLOAD_ALL,
	       .cls = GV_FORCE_FULL, .burst = GV_BURSTS_LB_TABLE(tx_full) },
	.owned = tx_full_owned,
	.cleanup = tx_full_cleanup,
	.prepare = gv_tx_prepare,
};
