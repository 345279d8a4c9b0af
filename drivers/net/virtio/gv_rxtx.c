/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rxtx.c - the RX and TX burst functions on top of the virtqueue core.
 *
 * RX: simple (one mbuf per packet), mergeable (a packet spans the
 * num_buffers mbufs the device chose), full (a chain of mbufs posted per
 * packet, for large frames without MRG_RXBUF). Refill allocates exactly
 * as many mbufs as there are free descriptors, in bulk.
 * TX: simple (one descriptor per packet, header pushed into the
 * headroom), in-order (simple, reclaiming without reading used entries),
 * full (multi-segment chains, indirect tables when negotiated).
 *
 * The core validates everything the device writes; a queue the device
 * broke returns nothing, logs once, and gives its mbufs back at stop.
 */
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "gv_offload.h"
#include "gv_pmd.h"

static __rte_always_inline uint64_t mbuf_addr(const struct rte_mbuf *m, uint32_t off)
{
	return *(const uint64_t *)((const char *)m + off);
}

static __rte_always_inline void count_pkt(struct gv_qstats *st, const struct rte_mbuf *m)
{
	uint32_t len = m->pkt_len;
	const struct rte_ether_addr *ea;
	unsigned int bin;

	st->bytes += len;
	if (len > 1518)
		bin = 7;
	else if (len < 64)
		bin = 0;
	else if (len == 64)
		bin = 1;
	else
		bin = (unsigned int)(31 - __builtin_clz(len)) - 4;
	st->size_bins[bin]++;
	if (unlikely(m->data_len < RTE_ETHER_ADDR_LEN))
		return;
	ea = rte_pktmbuf_mtod(m, const struct rte_ether_addr *);
	if (unlikely(rte_is_multicast_ether_addr(ea))) {
		if (rte_is_broadcast_ether_addr(ea))
			st->broadcast++;
		else
			st->multicast++;
	}
}

static void queue_broken(struct gv_queue *q, const char *dir)
{
	struct gv_vq_stats s;

	if (q->broken_logged)
		return;
	q->broken_logged = true;
	gv_vq_stats(q->vq, &s);
	GV_LOG(ERR,
	       "%s: %s queue %u stopped: the device wrote invalid ring data "
	       "(bad_id=%" PRIu64 " id_not_inflight=%" PRIu64 " bad_len=%" PRIu64
	       " bad_flags=%" PRIu64 " bad_used_idx=%" PRIu64 " bad_order=%" PRIu64 ")",
	       q->hw->name, dir, q->queue_id, s.bad_id, s.id_not_inflight, s.bad_len,
	       s.bad_flags, s.bad_used_idx, s.bad_order);
}

static __rte_always_inline void kick(struct gv_queue *q)
{
	if (gv_vq_kick_prepare(q->vq)) {
		q->hw->ops->notify(q->hw, q);
		q->st.kicks++;
	}
}

/* ---------------------------------------------------------------- RX -- */

/*
 * The pool could not give `n` mbufs at once: take fewer (halving), so a
 * pool that is short (or smaller than one refill) still gets its mbufs
 * posted instead of leaving the ring empty. The number taken, maybe 0.
 */
static uint32_t rx_alloc_fewer(struct rte_mempool *mp, struct rte_mbuf **mb, uint32_t n)
{
	while ((n /= 2) != 0)
		if (rte_pktmbuf_alloc_bulk(mp, mb, n) == 0)
			return n;
	return 0;
}

/* Post one-mbuf buffers (simple and mergeable paths). */
static void rx_refill_single(struct gv_rxq *rxq)
{
	struct gv_vq *vq = rxq->q.vq;
	uint32_t room = gv_vq_num_free(vq);
	const uint16_t hdr = rxq->hdr_size;

	while (room) {
		struct rte_mbuf *mb[GV_BURST_MAX];
		struct gv_seg segs[GV_BURST_MAX];
		uint32_t n = room < GV_BURST_MAX ? room : GV_BURST_MAX, added;

		if (rte_pktmbuf_alloc_bulk(rxq->mp, mb, n) != 0) {
			uint32_t got = rx_alloc_fewer(rxq->mp, mb, n);

			rxq->nombuf += n - got;
			if (got == 0)
				break;
			n = got;
		}
		for (uint32_t i = 0; i < n; i++) {
			segs[i].addr = mbuf_addr(mb[i], rxq->addr_off) + RTE_PKTMBUF_HEADROOM - hdr;
			segs[i].len = (uint32_t)mb[i]->buf_len - RTE_PKTMBUF_HEADROOM + hdr;
		}
		added = gv_vq_add_burst(vq, segs, (void *const *)mb, n, true);
		if (unlikely(added < n)) { /* the device broke the queue */
			rte_pktmbuf_free_bulk(mb + added, n - added);
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
static void rx_refill_chains(struct gv_rxq *rxq)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint16_t hdr = rxq->hdr_size, clen = rxq->chain_len;
	const bool ind = clen > 1 && gv_has(rxq->q.hw, GV_F_RING_INDIRECT_DESC);
	uint32_t chains = gv_vq_num_free(vq) / (ind ? 1u : clen);

	while (chains) {
		struct rte_mbuf *pool[GV_BURST_MAX];
		uint32_t want = chains * clen, npool;

		want = want > rxq->n_spare ? want - rxq->n_spare : 0;
		if (want > GV_BURST_MAX)
			want = GV_BURST_MAX - GV_BURST_MAX % clen;
		npool = want;
		if (want && rte_pktmbuf_alloc_bulk(rxq->mp, pool, want) != 0) {
			npool = rx_alloc_fewer(rxq->mp, pool, want);
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
				uint32_t front = k == 0 ? hdr : 0;

				segs[k].addr = mbuf_addr(m, rxq->addr_off) + RTE_PKTMBUF_HEADROOM - front;
				segs[k].len = (uint32_t)m->buf_len - RTE_PKTMBUF_HEADROOM + front;
				if (prev)
					prev->next = m;
				else
					head = m;
				prev = m;
			}
			head->nb_segs = clen;
			if (gv_vq_add(vq, segs, 0, clen, head, ind) != 0) {
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

void gv_rxq_refill(struct gv_rxq *rxq)
{
	if (rxq->chain_len > 1)
		rx_refill_chains(rxq);
	else
		rx_refill_single(rxq);
	if (gv_vq_kick_prepare(rxq->q.vq)) {
		rxq->q.hw->ops->notify(rxq->q.hw, &rxq->q);
		rxq->q.st.kicks++;
	}
}

static __rte_always_inline void rx_finish(struct gv_rxq *rxq)
{
	if (gv_vq_num_free(rxq->q.vq) >= rxq->refill_thresh)
		gv_rxq_refill(rxq);
	if (unlikely(gv_vq_broken(rxq->q.vq)))
		queue_broken(&rxq->q, "rx");
}

static __rte_always_inline uint16_t rx_mrg_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct gv_rxq *rxq = q;
	const uint16_t hdr = rxq->hdr_size;
	uint16_t nrx = 0;

	while (nrx < n) {
		struct rte_mbuf *bufs[GV_BURST_MAX];
		uint32_t lens[GV_BURST_MAX];
		uint32_t want = (uint32_t)(n - nrx) < GV_BURST_MAX ? (uint32_t)(n - nrx) : GV_BURST_MAX;
		uint32_t got = gv_vq_get_used(rxq->q.vq, (void **)bufs, lens, want);

		for (uint32_t i = 0; i < got; i++) {
			struct rte_mbuf *m = bufs[i];

			if (!rxq->mrg_head) {
				const struct gv_net_hdr *h = (const struct gv_net_hdr *)
					((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM - hdr);
				uint16_t nb = h->num_buffers;

				if (unlikely(lens[i] <= hdr || nb == 0 || nb > GV_MAX_MRG_BUFS)) {
					rxq->q.st.errors++;
					rte_pktmbuf_free(m);
					continue;
				}
				m->data_len = (uint16_t)(lens[i] - hdr);
				m->pkt_len = lens[i] - hdr;
				m->port = rxq->port_id;
				rxq->mrg_head = rxq->mrg_tail = m;
				rxq->mrg_left = nb - 1;
			} else {
				struct rte_mbuf *head = rxq->mrg_head;

				m->data_off = RTE_PKTMBUF_HEADROOM - hdr;
				m->data_len = (uint16_t)lens[i];
				rxq->mrg_tail->next = m;
				rxq->mrg_tail = m;
				head->nb_segs++;
				head->pkt_len += lens[i];
				rxq->mrg_left--;
			}
			if (rxq->mrg_left == 0) {
				struct rte_mbuf *head = rxq->mrg_head;

				if (rxq->ol_any)
					gv_rx_offload(rxq, head, (const struct gv_net_hdr *)
						((char *)head->buf_addr + RTE_PKTMBUF_HEADROOM - hdr));
				count_pkt(&rxq->q.st, rxq->mrg_head);
				pkts[nrx++] = rxq->mrg_head;
				rxq->mrg_head = NULL;
			}
		}
		if (got < want)
			break;
	}
	rxq->q.st.packets += nrx;
	rx_finish(rxq);
	return nrx;
}

/* A chain came back with `len` bytes: trim it, keep unused mbufs spare. */
static struct rte_mbuf *rx_trim_chain(struct gv_rxq *rxq, struct rte_mbuf *head, uint32_t len)
{
	struct rte_mbuf *m = head, *last = head;
	uint16_t segs = 0;
	uint32_t left = len;

	head->pkt_len = len;
	while (m) {
		struct rte_mbuf *next = m->next;
		uint32_t room = (uint32_t)m->buf_len - RTE_PKTMBUF_HEADROOM;

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
 * One used chain per packet: the simple path (one mbuf) and the full path
 * (a chain of mbufs, trimmed to the length, offloads) as one function
 * specialised by the literal `full`.
 */
static __rte_always_inline uint16_t rx_plain_t(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					       uint16_t n, const bool full)
{
	const uint16_t hdr = rxq->hdr_size;
	uint32_t lens[GV_BURST_MAX];
	uint16_t nrx = 0, got;

	if (n > GV_BURST_MAX)
		n = GV_BURST_MAX;
	got = (uint16_t)gv_vq_get_used(rxq->q.vq, (void **)pkts, lens, n);
	for (uint16_t i = 0; i < got; i++) {
		struct rte_mbuf *m = pkts[i];

		if (unlikely(lens[i] <= hdr)) {
			rxq->q.st.errors++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (full) {
			m = rx_trim_chain(rxq, m, lens[i] - hdr);
			if (rxq->ol_any)
				gv_rx_offload(rxq, m, (const struct gv_net_hdr *)
					((char *)m->buf_addr + RTE_PKTMBUF_HEADROOM - hdr));
		} else {
			m->data_len = (uint16_t)(lens[i] - hdr);
			m->pkt_len = lens[i] - hdr;
		}
		m->port = rxq->port_id;
		count_pkt(&rxq->q.st, m);
		pkts[nrx++] = m;
	}
	rxq->q.st.packets += nrx;
	rx_finish(rxq);
	return nrx;
}

static __rte_always_inline uint16_t rx_simple_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rx_plain_t(q, pkts, n, false);
}

static __rte_always_inline uint16_t rx_full_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return rx_plain_t(q, pkts, n, true);
}

/* Give back every mbuf the queue holds (port stop). */
void gv_rxq_drain(struct gv_rxq *rxq)
{
	void *cookie;

	if (!rxq->q.vq)
		return;
	while ((cookie = gv_vq_detach(rxq->q.vq)) != NULL)
		rte_pktmbuf_free(cookie);
	if (rxq->mrg_head)
		rte_pktmbuf_free(rxq->mrg_head);
	rxq->mrg_head = rxq->mrg_tail = NULL;
	rxq->mrg_left = 0;
	while (rxq->n_spare)
		rte_pktmbuf_free_seg(rxq->spare[--rxq->n_spare]);
	gv_vq_reset(rxq->q.vq);
	rxq->q.broken_logged = false;
}

/* ---------------------------------------------------------------- TX -- */

static __rte_always_inline void tx_reclaim(struct gv_txq *txq, const bool in_order)
{
	void *ck[GV_BURST_MAX];
	uint32_t got;

	do {
		got = in_order ? gv_vq_reclaim_in_order(txq->q.vq, ck, GV_BURST_MAX)
			       : gv_vq_get_used(txq->q.vq, ck, NULL, GV_BURST_MAX);
		if (got)
			rte_pktmbuf_free_bulk((struct rte_mbuf **)ck, got);
	} while (got == GV_BURST_MAX);
}

/* The header can go into the packet's own headroom. */
static __rte_always_inline bool can_push(const struct rte_mbuf *m, uint16_t hdr)
{
	return rte_pktmbuf_headroom(m) >= hdr && RTE_MBUF_DIRECT(m) &&
	       rte_mbuf_refcnt_read(m) == 1;
}

/*
 * Post one packet as a chain: header (pushed, or in a small mbuf from the
 * packet's pool when there is no room), then every segment. 0: posted;
 * -ENOSPC: no room now (nothing changed); other: the packet cannot be
 * sent (the caller drops it).
 */
static int tx_post_chain(struct gv_txq *txq, struct rte_mbuf *m)
{
	const uint16_t hdr = txq->hdr_size;
	struct gv_seg segs[GV_MAX_TX_SEGS + 1];
	struct rte_mbuf *cookie = m, *h = NULL;
	uint16_t n = 0;
	int ret;
	/* hdr is 20 bytes with HASH_REPORT: the copy below takes all of them. */
	struct gv_net_hdr_hash vh;

	if (unlikely(m->nb_segs > GV_MAX_TX_SEGS))
		return -EINVAL;
	gv_tx_fill_hdr(&vh.hdr, m);
	vh.hash_value = 0;
	vh.hash_report = 0;
	vh.padding = 0;
	if (can_push(m, hdr)) {
		memcpy(rte_pktmbuf_mtod_offset(m, char *, -(int)hdr), &vh, hdr);
		segs[n].addr = mbuf_addr(m, txq->addr_off) + m->data_off - hdr;
		segs[n++].len = (uint32_t)m->data_len + hdr;
		m = m->next;
	} else {
		h = rte_pktmbuf_alloc(m->pool);
		if (!h)
			return -ENOMEM;
		memcpy(rte_pktmbuf_mtod(h, char *), &vh, hdr);
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
	ret = gv_vq_add(txq->q.vq, segs, n, 0, cookie, txq->indirect && n > 1);
	if (ret && h) {
		h->next = NULL;
		rte_pktmbuf_free(h);
	}
	return ret;
}

static __rte_always_inline uint16_t tx_simple_t(struct gv_txq *txq, struct rte_mbuf **pkts,
						uint16_t n, const bool in_order)
{
	struct gv_vq *vq = txq->q.vq;
	const uint16_t hdr = txq->hdr_size;
	uint16_t sent = 0;

	if (gv_vq_num_free(vq) < txq->free_thresh || gv_vq_num_free(vq) < n)
		tx_reclaim(txq, in_order);
	while (sent < n) {
		struct gv_seg segs[GV_BURST_MAX];
		void *ck[GV_BURST_MAX];
		uint32_t room = gv_vq_num_free(vq), k = 0, want = n - sent, added;

		if (want > GV_BURST_MAX)
			want = GV_BURST_MAX;
		if (want > room)
			want = room;
		if (want == 0)
			break;
		for (uint32_t i = 0; i < want; i++) {
			struct rte_mbuf *m = pkts[sent + i];

			if (unlikely(m->nb_segs != 1 || !can_push(m, hdr))) {
				/* Rare: post what we have, then this one as a chain. */
				int ret;
				uint32_t added = gv_vq_add_burst(vq, segs, ck, k, false);

				txq->q.st.packets += added;
				if (unlikely(added < k)) { /* broken: the rest stay the app's */
					sent += added;
					goto out;
				}
				ret = tx_post_chain(txq, m);
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
			memset(rte_pktmbuf_mtod_offset(m, char *, -(int)hdr), 0, hdr);
			segs[k].addr = mbuf_addr(m, txq->addr_off) + m->data_off - hdr;
			segs[k].len = (uint32_t)m->data_len + hdr;
			ck[k++] = m;
			count_pkt(&txq->q.st, m);
		}
		added = gv_vq_add_burst(vq, segs, ck, k, false);
		txq->q.st.packets += added;
		if (unlikely(added < k)) { /* broken: the rest stay the app's */
			sent += added;
			break;
		}
		sent += want;
next_round:;
	}
out:
	kick(&txq->q);
	if (unlikely(gv_vq_broken(vq)))
		queue_broken(&txq->q, "tx");
	return sent;
}

static __rte_always_inline uint16_t tx_simple_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_simple_t(q, pkts, n, false);
}

static __rte_always_inline uint16_t tx_inorder_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return tx_simple_t(q, pkts, n, true);
}

static __rte_always_inline uint16_t tx_full_body(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct gv_txq *txq = q;
	uint16_t sent;

	if (gv_vq_num_free(txq->q.vq) < txq->free_thresh)
		tx_reclaim(txq, txq->in_order);
	for (sent = 0; sent < n; sent++) {
		struct rte_mbuf *m = pkts[sent];
		int ret = tx_post_chain(txq, m);

		if (ret == -ENOSPC) {
			tx_reclaim(txq, txq->in_order);
			ret = tx_post_chain(txq, m);
		}
		if (ret == -ENOSPC || ret == -ENOMEM || ret == -EIO)
			break;
		if (ret) {
			txq->q.st.errors++;
			rte_pktmbuf_free(m);
			continue;
		}
		count_pkt(&txq->q.st, m);
		txq->q.st.packets++;
	}
	kick(&txq->q);
	if (unlikely(gv_vq_broken(txq->q.vq)))
		queue_broken(&txq->q, "tx");
	return sent;
}

void gv_txq_drain(struct gv_txq *txq)
{
	void *cookie;

	if (!txq->q.vq)
		return;
	while ((cookie = gv_vq_detach(txq->q.vq)) != NULL)
		rte_pktmbuf_free(cookie);
	gv_vq_reset(txq->q.vq);
	txq->q.broken_logged = false;
}

/*
 * The burst functions ethdev calls: each holds its queue for the length
 * of the burst (one compare-and-swap), so the control path can pause a
 * queue and reset its ring under a running port.
 */
#define GV_GUARDED(name, qtype)                                                \
	static uint16_t name(void *q, struct rte_mbuf **pkts, uint16_t n)      \
	{                                                                      \
		struct gv_queue *gq = &((qtype *)q)->q;                        \
		uint16_t r;                                                    \
									       \
		if (unlikely(!gv_queue_enter(gq)))                             \
			return 0;                                              \
		r = name##_body(q, pkts, n);                                   \
		gv_queue_exit(gq);                                             \
		return r;                                                      \
	}

GV_GUARDED(rx_simple, struct gv_rxq)
GV_GUARDED(rx_mrg, struct gv_rxq)
GV_GUARDED(rx_full, struct gv_rxq)
GV_GUARDED(tx_simple, struct gv_txq)
GV_GUARDED(tx_inorder, struct gv_txq)
GV_GUARDED(tx_full, struct gv_txq)

/* The caller holds the queue already (paused it): send on the port's path. */
uint16_t gv_tx_owned(const struct gv_hw *hw, struct gv_txq *txq, struct rte_mbuf **pkts,
		     uint16_t n)
{
	switch (hw->tx_path) {
	case GV_TX_INORDER:
		return tx_inorder_body(txq, pkts, n);
	case GV_TX_FULL:
		return tx_full_body(txq, pkts, n);
	default:
		return tx_simple_body(txq, pkts, n);
	}
}

void gv_queue_pause(struct gv_queue *q)
{
	for (;;) {
		uint32_t idle = GV_Q_IDLE;

		if (__atomic_compare_exchange_n(&q->state, &idle, GV_Q_PAUSED, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED) ||
		    idle == GV_Q_PAUSED)
			return;
		rte_pause();
	}
}

void gv_queue_resume(struct gv_queue *q)
{
	__atomic_store_n(&q->state, GV_Q_IDLE, __ATOMIC_RELEASE);
}

/* A port that is not started (or whose backend left) moves nothing. */
static uint16_t burst_none(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

gv_burst_fn gv_rx_fn(const struct gv_hw *hw, enum gv_rx_path p)
{
	(void)hw;
	switch (p) {
	case GV_RX_SIMPLE:
		return rx_simple;
	case GV_RX_MRG:
		return rx_mrg;
	case GV_RX_FULL:
		return rx_full;
	default:
		return burst_none;
	}
}

gv_burst_fn gv_tx_fn(const struct gv_hw *hw, enum gv_tx_path p)
{
	(void)hw;
	switch (p) {
	case GV_TX_SIMPLE:
		return tx_simple;
	case GV_TX_INORDER:
		return tx_inorder;
	case GV_TX_FULL:
		return tx_full;
	default:
		return burst_none;
	}
}
