/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pmd_pkt.c - what fuzz_pmd (fuzz_pmd.c) builds and checks around the
 * PMD: frames from a template and the input's bytes, TX packets of any
 * shape (segments, headroom, clones, offload flags), the sanity of every
 * mbuf the PMD hands up, and the pool check after each input (every mbuf
 * back exactly once).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "fuzz_pmd.h"

/* A frame template: Ethernet (maybe VLAN) + IPv4/IPv6 + TCP/UDP, then
 * the input's bytes over it at an offset of its choosing. */
uint32_t fz_make_frame(struct fz *in, uint8_t *buf, uint32_t cap)
{
	uint8_t kind = fz_u8(in);
	uint32_t len = fz_u16(in) % (cap + 1), l2 = 14, off;
	uint8_t over[32];
	uint8_t n;

	memset(buf, 0, RTE_MIN(cap, RTE_MAX(len, 320u))); /* what is read: frame, overlay */
	memset(buf, 0xff, 6); /* broadcast, a multicast bit to count */
	buf[6] = 0x02;
	if (kind & 1) { /* VLAN */
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = 0x00;
		buf[15] = (uint8_t)(kind >> 4);
		l2 = 18;
	}
	if (kind & 2) { /* IPv6 + TCP */
		buf[l2 - 2] = 0x86;
		buf[l2 - 1] = 0xdd;
		buf[l2] = 0x60;
		buf[l2 + 4] = 0;
		buf[l2 + 5] = 20;
		buf[l2 + 6] = (kind & 4) ? IPPROTO_UDP : IPPROTO_TCP;
		buf[l2 + 7] = 64;
	} else { /* IPv4 + TCP/UDP */
		buf[l2 - 2] = 0x08;
		buf[l2 - 1] = 0x00;
		buf[l2] = 0x45;
		buf[l2 + 3] = 40;
		buf[l2 + 8] = 64;
		buf[l2 + 9] = (kind & 4) ? IPPROTO_UDP : IPPROTO_TCP;
	}
	off = fz_u8(in);
	n = fz_u8(in) % sizeof(over);
	fz_bytes(in, over, n);
	if (off < cap)
		memcpy(buf + off, over, RTE_MIN((uint32_t)n, cap - off));
	return len;
}

/* One packet for TX of the shape the input says. */
struct rte_mbuf *fz_make_tx(struct fz *in, struct rte_mempool *pool)
{
	static uint8_t frame[2048];
	uint8_t shape = fz_u8(in);
	uint32_t len = fz_make_frame(in, frame, sizeof(frame) - 256);
	uint16_t nseg = 1 + shape % 3;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool), *last;
	uint32_t first = nseg > 1 ? len / 2 : len;

	if (!m)
		return NULL;
	if (shape & 8) /* no headroom: the header cannot be pushed */
		m->data_off = 0;
	memcpy(rte_pktmbuf_append(m, (uint16_t)first), frame, first);
	last = m;
	for (uint16_t k = 1, at = (uint16_t)first; k < nseg; k++) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
		uint32_t l = k == 1 && nseg > 2 ? (len - first) / 2 : len - at;

		if (!s) {
			rte_pktmbuf_free(m);
			return NULL;
		}
		memcpy(rte_pktmbuf_append(s, (uint16_t)l), frame + at, l);
		at = (uint16_t)(at + l);
		last->next = s;
		last = s;
		m->nb_segs++;
		m->pkt_len += l;
	}
	m->l2_len = (frame[12] == 0x81) ? 18 : 14;
	m->l3_len = (frame[m->l2_len - 2] == 0x86) ? 40 : 20;
	m->l4_len = 20;
	m->tso_segsz = fz_u16(in) % 2000;
	switch ((shape >> 4) & 7) {
	case 1:
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		break;
	case 2:
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_CKSUM;
		break;
	case 3:
		m->ol_flags = RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		break;
	case 4:
		m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IP_CKSUM;
		break;
	case 5:
		m->ol_flags = RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = fz_u16(in);
		break;
	case 6:
		m->ol_flags = RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_TCP_SEG;
		break;
	case 7:
		m->ol_flags = (uint64_t)fz_u32(in) << 32 & RTE_MBUF_F_TX_OFFLOAD_MASK;
		break;
	default:
		break;
	}
	if (shape & 128) { /* an indirect mbuf: never written into */
		struct rte_mbuf *c = rte_pktmbuf_clone(m, pool);

		rte_pktmbuf_free(m);
		m = c;
	}
	return m;
}


void fz_check_rx(struct rte_mbuf *m, uint16_t port, const struct rte_mempool *mp)
{
	const char *why = NULL;
	uint32_t sum = 0;
	uint16_t segs = 0;

	FZ_CHECK(rte_mbuf_check(m, 1, &why) == 0, "received mbuf is insane: %s", why);
	FZ_CHECK(m->port == port, "port %u", m->port);
	for (const struct rte_mbuf *s = m; s; s = s->next) {
		FZ_CHECK(s->pool == mp, "segment %u from another pool", segs);
		FZ_CHECK((uint32_t)s->data_off + s->data_len <= s->buf_len,
			 "segment %u: data %u+%u beyond a %u-byte buffer", segs, s->data_off,
			 s->data_len, s->buf_len);
		FZ_CHECK(rte_mbuf_refcnt_read(s) == 1, "segment %u refcnt %u", segs,
			 rte_mbuf_refcnt_read(s));
		sum += s->data_len;
		segs++;
	}
	FZ_CHECK(sum == m->pkt_len, "pkt_len %u, segments hold %u", m->pkt_len, sum);
	FZ_CHECK(segs == m->nb_segs, "nb_segs %u, chain of %u", m->nb_segs, segs);
}

/*
 * Each mbuf has 8 bytes of private area (priv_size): the check below
 * stamps it with a generation number, so a pointer the pool holds twice
 * (a double free) is seen at once.
 */
static uint64_t *stamp(void *obj)
{
	return (uint64_t *)((struct rte_mbuf *)obj + 1);
}

static void report_missing(struct rte_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	const struct rte_mbuf *m = obj;

	(void)mp;
	(void)idx;
	if (*stamp(obj) != *(uint64_t *)opaque)
		fprintf(stderr, "missing mbuf %p: pool %s refcnt %u nb_segs %u next %p data_off %u "
			"data_len %u pkt_len %u ol_flags 0x%" PRIx64 " port %u\n", obj,
			m->pool ? m->pool->name : "NULL", rte_mbuf_refcnt_read(m), m->nb_segs,
			(void *)m->next, m->data_off, m->data_len, m->pkt_len, m->ol_flags, m->port);
}

/*
 * Every mbuf back, each exactly once: a double free shows as a pointer
 * the pool holds twice (and, with a leak at the same time, a count that
 * still adds up).
 */
/* Not instrumented for coverage: it runs over every mbuf after each input. */
#ifdef __clang__
__attribute__((no_sanitize("coverage")))
#endif
void fz_check_pool(struct rte_mempool *mp)
{
	static void *objs[FZ_NB_MBUF];
	static uint64_t gen;
	unsigned int avail = rte_mempool_avail_count(mp);

	FZ_CHECK(avail <= mp->size, "pool %s: %u of %u (double free)", mp->name, avail, mp->size);
	FZ_CHECK(rte_mempool_get_bulk(mp, objs, avail) == 0, "pool %s", mp->name);
	gen++;
	for (unsigned int i = 0; i < avail; i++) {
		FZ_CHECK(rte_mempool_from_obj(objs[i]) == mp, "pool %s: %p is not its mbuf", mp->name,
			 objs[i]);
		FZ_CHECK(*stamp(objs[i]) != gen, "pool %s: mbuf %p back twice (double free)",
			 mp->name, objs[i]);
		*stamp(objs[i]) = gen;
	}
	if (avail < mp->size) {
		rte_mempool_obj_iter(mp, report_missing, &gen);
		fprintf(stderr, "fuzz invariant failed: pool %s: %u of %u mbufs back after close "
			"(leak)\n", mp->name, avail, mp->size);
		abort();
	}
	rte_mempool_put_bulk(mp, objs, avail);
}
