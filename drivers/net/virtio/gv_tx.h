/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_tx.h - what the scalar TX bursts (gv_tx.c) and the vector TX paths
 * (gv_tx_vec.c) share: freeing sent mbufs in bulk (with the write
 * prefetch for the next owner), the zero header written only where it is
 * not zero already, and the test of a packet that fits one descriptor.
 * Internal to the PMD.
 */
#ifndef GV_TX_H
#define GV_TX_H

#include "gv_rxtx.h"

/*
 * Take the cache line at `p` with write ownership ahead of a store
 * (x86: PREFETCHW, which Intel cores before Broadwell do not list but run
 * as a no-op; elsewhere the compiler's write prefetch). A hint: it never
 * faults and changes no data.
 */
static __rte_always_inline void prefetch_w(const void *p)
{
#ifdef RTE_ARCH_X86
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/*
 * Free sent mbufs: single-segment ones of one pool that nobody else holds
 * go back to the pool in one put (rte_pktmbuf_prefree_seg inline), the
 * rest one by one.
 *
 * An mbuf the application built (its port is the invalid one that
 * rte_pktmbuf_alloc() sets; a received one carries its RX port) has the
 * line where its next owner's data starts prefetched for writing as it
 * goes back: the device (the back-end's core) has just read that line,
 * and an application that builds packets takes the mbuf again at once
 * (the pool's cache hands out the last freed first) and writes a packet
 * there. Without the hint that store waits for the other core to give
 * the line up, with the store buffer full behind it: testpmd txonly
 * measured ~36 TSC cycles per packet more there next to gvirtio than
 * next to DPDK's PMD, and packed guest TX stopped at ~18-20 Mpps (perf cpu-clock
 * profiles); asked for here, the
 * transfer overlaps the rest of the burst. A forwarded mbuf goes back to
 * an RX ring instead, where the device writes it next: taking the line
 * then would only add a transfer (loopback measured up to 15% slower).
 * buf_len is not checked (3 instructions a packet): for a buffer with
 * no room past the headroom the hint lands on a neighbour's line, which
 * costs a transfer at worst.
 */
static __rte_always_inline void tx_free(struct rte_mbuf **ms, uint32_t n)
{
	struct rte_mempool *mp = ms[0]->pool;
	void *put[GV_BURST_MAX];
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = ms[i];

		if (likely(m->next == NULL && m->pool == mp)) {
			m = rte_pktmbuf_prefree_seg(m);
			if (m) {
				if (m->port == RTE_MBUF_PORT_INVALID)
					prefetch_w((const char *)m->buf_addr +
						   RTE_PKTMBUF_HEADROOM);
				put[k++] = m;
			}
		} else {
			rte_pktmbuf_free(m);
		}
	}
	if (k)
		rte_mempool_put_bulk(mp, put, k);
}

/*
 * A zero header (no offloads), written the same way, but only where it
 * is not zero already: a recycled mbuf's headroom mostly still holds the
 * zero header of its last trip, and the device (the back-end's core) read
 * that cache line then; a store would take the line back from it, one
 * cross-core transfer per packet, where a load finds it shared.
 */
static __rte_always_inline void hdr_zero(void *dst, uint16_t hdr)
{
	const uint64_t z = 0;
	uint64_t a, b, c = 0;

	memcpy(&a, dst, 8);
	memcpy(&b, (char *)dst + hdr - 8, 8);
	if (unlikely(hdr > 16))
		memcpy(&c, (char *)dst + 8, 8);
	if (likely((a | b | c) == 0))
		return;
	if (unlikely(hdr > 16))
		memcpy((char *)dst + 8, &z, 8);
	memcpy(dst, &z, 8);
	memcpy((char *)dst + hdr - 8, &z, 8);
}

/*
 * The packet fits the simple path: one segment, the header pushed into
 * its own headroom (room for it, direct, not shared). One 64-bit load
 * covers data_off, refcnt and nb_segs.
 */
static __rte_always_inline bool tx_simple_ok(const struct rte_mbuf *m, uint16_t hdr,
					     const bool full)
{
	/* The full path also needs a packet that asks for no offload. */
	const uint64_t ol_no = RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL |
			       (full ? RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_L4_MASK : 0);
	uint64_t r;
	const uint64_t one_one = ((uint64_t)1 << 16) | ((uint64_t)1 << 32); /* refcnt, nb_segs */

	memcpy(&r, (const char *)m + offsetof(struct rte_mbuf, rearm_data), 8);

	return ((r & 0xffffffff0000ull) == one_one) & ((uint16_t)r >= hdr) &
	       ((m->ol_flags & ol_no) == 0);
}

/*
 * The pool to take a new mbuf from for packet m's header or copy: the
 * pool of the buffer m's data lives in. A clone's own pool (an indirect
 * mbuf's) often has no data room at all.
 */
static __rte_always_inline struct rte_mempool *tx_data_pool(struct rte_mbuf *m)
{
	return RTE_MBUF_CLONED(m) ? rte_mbuf_from_indirect(m)->pool : m->pool;
}

#endif /* GV_TX_H */
