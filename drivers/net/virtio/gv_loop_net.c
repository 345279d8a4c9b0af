/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_loop_net.c - the packet work of the loopback device: take what the
 * driver transmitted, apply the virtio-net header (checksum completion,
 * TCP segmentation), then deliver each frame to an RX queue: receive
 * filters (MAC, VLAN), queue choice (pair, or RSS with a Toeplitz hash),
 * the receive header (DATA_VALID, LRO, hash report, num_buffers) and the
 * copy into one chain or several mergeable buffers.
 *
 * Nothing the driver wrote is trusted: header offsets and packet headers
 * are checked before use; what fails is dropped and counted.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "gv_loop_priv.h"

#define ETH_HLEN 14
#define ETYPE_IPV4 0x0800
#define ETYPE_IPV6 0x86dd
#define ETYPE_VLAN 0x8100
#define ETYPE_QINQ 0x88a8
#define PROTO_TCP 6
#define PROTO_UDP 17
#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

/* hash_report values (virtio 1.2 5.1.6.4.3.2) */
#define REPORT_NONE 0
#define REPORT_IPV4 1
#define REPORT_TCPV4 2
#define REPORT_UDPV4 3
#define REPORT_IPV6 4
#define REPORT_TCPV6 5
#define REPORT_UDPV6 6

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

/* ---------------------------------------------------------- checksums -- */

/* Ones' complement sum of big-endian 16-bit words (odd tail padded). */
static uint64_t csum_add(uint64_t acc, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += rd16(p + i);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	return acc;
}

static uint16_t csum_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* ------------------------------------------------------------ parsing -- */

struct pkt_info {
	uint32_t l3, l4; /* offsets */
	uint32_t l4_len; /* L4 header + payload, by the IP header */
	uint8_t ipv; /* 4, 6, or 0: not IP */
	uint8_t proto; /* L4 protocol; 0 when unknown */
	bool frag; /* a fragment: no L4 header to look at */
	bool has_vlan;
	uint16_t vid;
};

/* Ethernet (up to two tags), IPv4 / IPv6 (common extension headers). */
static void parse(const uint8_t *p, uint32_t len, struct pkt_info *pi)
{
	uint32_t off = 12;
	uint16_t et;

	memset(pi, 0, sizeof(*pi));
	if (len < ETH_HLEN)
		return;
	et = rd16(p + off);
	for (int tags = 0; (et == ETYPE_VLAN || et == ETYPE_QINQ) && tags < 2; tags++) {
		if (off + 6 > len)
			return;
		if (!pi->has_vlan) {
			pi->has_vlan = true;
			pi->vid = rd16(p + off + 2) & 0xfff;
		}
		off += 4;
		et = rd16(p + off);
	}
	pi->l3 = off + 2;
	if (et == ETYPE_IPV4 && len >= pi->l3 + 20 && (p[pi->l3] >> 4) == 4) {
		uint32_t ihl = (p[pi->l3] & 0xfu) * 4u, tot = rd16(p + pi->l3 + 2);

		if (ihl < 20 || pi->l3 + ihl > len)
			return;
		pi->ipv = 4;
		pi->l4 = pi->l3 + ihl;
		/* A GSO packet's length field may not hold its size: 0 then. */
		pi->l4_len = tot >= ihl ? tot - ihl : 0;
		pi->frag = (rd16(p + pi->l3 + 6) & 0x3fff) != 0;
		pi->proto = p[pi->l3 + 9];
	} else if (et == ETYPE_IPV6 && len >= pi->l3 + 40 && (p[pi->l3] >> 4) == 6) {
		uint32_t off6 = pi->l3 + 40, plen = rd16(p + pi->l3 + 4);
		uint8_t nh = p[pi->l3 + 6];

		pi->ipv = 6;
		/* Hop-by-hop, routing, destination options: skipped. */
		while ((nh == 0 || nh == 43 || nh == 60) && off6 + 8 <= len) {
			nh = p[off6];
			off6 += 8u * (p[off6 + 1] + 1u);
		}
		if (off6 > len)
			return;
		pi->frag = nh == 44;
		pi->l4 = off6;
		pi->l4_len = off6 - pi->l3 - 40 <= plen ? plen - (off6 - pi->l3 - 40) : 0;
		pi->proto = nh;
	}
}

/* Pseudo-header sum for an L4 segment of l4_len bytes. */
static uint64_t pseudo_sum(const uint8_t *p, const struct pkt_info *pi, uint32_t l4_len)
{
	uint64_t acc = pi->proto + (uint64_t)(l4_len >> 16) + (l4_len & 0xffff);

	if (pi->ipv == 4)
		return csum_add(acc, p + pi->l3 + 12, 8);
	return csum_add(acc, p + pi->l3 + 8, 32);
}

static bool l4_fits(const struct pkt_info *pi, uint32_t len)
{
	uint32_t min = pi->proto == PROTO_TCP ? 20 : 8;

	return pi->ipv && !pi->frag && (pi->proto == PROTO_TCP || pi->proto == PROTO_UDP) &&
	       pi->l4_len >= min && pi->l4 + pi->l4_len <= len;
}

/* Is the TCP/UDP checksum of this (complete) packet right? */
static bool l4_csum_ok(const uint8_t *p, uint32_t len, const struct pkt_info *pi)
{
	if (!l4_fits(pi, len))
		return false;
	if (pi->proto == PROTO_UDP && pi->ipv == 4 && rd16(p + pi->l4 + 6) == 0)
		return true; /* IPv4 UDP without a checksum */
	return csum_fold(csum_add(pseudo_sum(p, pi, pi->l4_len), p + pi->l4, pi->l4_len)) ==
	       0xffff;
}

static void ipv4_hdr_csum(uint8_t *p, const struct pkt_info *pi)
{
	uint8_t *ip = p + pi->l3;

	wr16(ip + 10, 0);
	wr16(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip, pi->l4 - pi->l3)));
}

/* ---------------------------------------------------------- RSS, hash -- */

GV_LOOP_EXPORT uint32_t gv_loop_toeplitz(const uint8_t *key, uint32_t klen, const uint8_t *in,
					uint32_t n)
{
	uint32_t hash = 0, window = 0;
	uint32_t kbit = 32; /* next key bit to shift into the window */

	for (uint32_t i = 0; i < 4; i++)
		window = window << 8 | (i < klen ? key[i] : 0);
	for (uint32_t i = 0; i < n; i++) {
		for (int b = 7; b >= 0; b--) {
			uint32_t kb = kbit / 8 < klen ? (key[kbit / 8] >> (7 - kbit % 8)) & 1u : 0;

			if (in[i] & (1u << b))
				hash ^= window;
			window = window << 1 | kb;
			kbit++;
		}
	}
	return hash;
}

/* Hash a received frame per the enabled types; false: not hashed. */
static bool frame_hash(const struct gv_loop_hash *h, const uint8_t *p, uint32_t len,
		       const struct pkt_info *pi, uint32_t *hash, uint16_t *report)
{
	uint8_t in[36];
	uint32_t n;
	bool l4 = !pi->frag && pi->l4 + 4 <= len;
	bool tcp = l4 && pi->proto == PROTO_TCP, udp = l4 && pi->proto == PROTO_UDP;
	uint32_t t = h->types;

	if (pi->ipv == 4) {
		memcpy(in, p + pi->l3 + 12, 8);
		n = 8;
		if (tcp && (t & (1u << 1)))
			*report = REPORT_TCPV4;
		else if (udp && (t & (1u << 2)))
			*report = REPORT_UDPV4;
		else if (t & (1u << 0))
			*report = REPORT_IPV4;
		else
			return false;
	} else if (pi->ipv == 6) {
		memcpy(in, p + pi->l3 + 8, 32);
		n = 32;
		if (tcp && (t & (1u << 4)))
			*report = REPORT_TCPV6;
		else if (udp && (t & (1u << 5)))
			*report = REPORT_UDPV6;
		else if (t & (1u << 3))
			*report = REPORT_IPV6;
		else
			return false;
	} else {
		return false;
	}
	if (*report != REPORT_IPV4 && *report != REPORT_IPV6) {
		memcpy(in + n, p + pi->l4, 4); /* source port, destination port */
		n += 4;
	}
	*hash = gv_loop_toeplitz(h->key, h->key_len, in, n);
	return true;
}

/* --------------------------------------------------------- RX queues -- */

void gv_loop_queue_broken(struct gv_loop *lp, uint16_t idx)
{
	struct gv_loop_vq *v = &lp->vq[idx];

	if (v->broken_logged)
		return;
	v->broken_logged = true;
	lp->st.bad_chains++;
	GV_LOG(ERR, "%s: device: queue %u stopped: the driver made a malformed chain available",
	       lp->name, idx);
}

/* The k-th chain held for the next packet, taking one more if needed. */
static struct gv_chain *stash_get(struct gv_loop *lp, uint16_t idx, uint16_t k)
{
	struct gv_loop_vq *v = &lp->vq[idx];
	struct gv_chain *c;
	int ret;

	if (k < v->st_count)
		return &v->stash[(v->st_head + k) % GV_LOOP_STASH];
	if (k != v->st_count || k >= GV_LOOP_STASH)
		return NULL;
	c = &v->stash[(v->st_head + k) % GV_LOOP_STASH];
	ret = gv_vqd_take(v->d, c);
	if (ret < 0)
		gv_loop_queue_broken(lp, idx);
	if (ret <= 0)
		return NULL;
	v->st_count++;
	return c;
}

static void stash_pop(struct gv_loop_vq *v, uint16_t n)
{
	v->st_head = (uint16_t)((v->st_head + n) % GV_LOOP_STASH);
	v->st_count = (uint16_t)(v->st_count - n);
}

/* Write [off, off+n) of the stream "header, then frame" into a chain. */
static void write_stream(struct gv_vqd *d, const struct gv_chain *c, const uint8_t *hdr,
			 uint32_t hlen, const uint8_t *pkt, uint32_t off, uint32_t n)
{
	uint32_t at = 0;

	if (off < hlen) {
		uint32_t k = RTE_MIN(n, hlen - off);

		gv_vqd_write(d, c, 0, hdr + off, k);
		at = k;
		off += k;
		n -= k;
	}
	if (n)
		gv_vqd_write(d, c, at, pkt + (off - hlen), n);
}

/* Stage the buffer rx_hold held back (before anything after it on its queue). */
static void rx_release(struct gv_loop *lp)
{
	struct gv_loop_vq *v = &lp->vq[2 * lp->held.rxq];

	if (!lp->held.pending)
		return;
	lp->held.pending = false;
	if (v->d && !gv_vqd_broken(v->d)) {
		gv_vqd_push(v->d, lp->held.id, lp->held.ndesc, lp->held.len);
		lp->rx_dirty |= 1u << lp->held.rxq;
	}
}

/* Copy one frame (and its header) into RX queue `rxq`. */
static void rx_write(struct gv_loop *lp, uint16_t rxq, struct gv_loop_hdr *h, const uint8_t *pkt,
		     uint32_t len)
{
	uint16_t idx = (uint16_t)(2 * rxq);
	struct gv_loop_vq *v = &lp->vq[idx];
	const uint32_t hlen = lp->hdr_size, total = hlen + len;
	bool mrg = gv_loop_has(lp, GV_NET_F_MRG_RXBUF);
	struct gv_chain *c;
	uint32_t have = 0, off = 0;
	uint16_t k = 0;

	if (!v->d || !v->stash || gv_vqd_broken(v->d)) {
		lp->st.drop_no_buffer++;
		return;
	}
	/* Gather the chains the packet needs; they stay held if it fails. */
	while (have < total) {
		c = stash_get(lp, idx, k);
		if (!c) {
			if (k >= GV_LOOP_STASH)
				lp->st.drop_too_big++;
			else
				lp->st.drop_no_buffer++;
			return;
		}
		if (k == 0 && (c->in_len < hlen || (!mrg && c->in_len < total))) {
			lp->st.drop_too_big++;
			return;
		}
		have += c->in_len;
		k++;
	}
	h->num_buffers = rte_cpu_to_le_16(k);
	rx_release(lp);
	for (uint16_t i = 0; i < k; i++) {
		uint32_t n;

		c = &v->stash[(v->st_head + i) % GV_LOOP_STASH];
		n = RTE_MIN(c->in_len, total - off);
		write_stream(v->d, c, (const uint8_t *)h, hlen, pkt, off, n);
		if (lp->rx_hold && k > 1 && i == k - 1) {
			lp->held.pending = true;
			lp->held.rxq = rxq;
			lp->held.id = c->id;
			lp->held.ndesc = c->ndesc;
			lp->held.len = n;
		} else {
			gv_vqd_push(v->d, c->id, c->ndesc, n);
		}
		off += n;
	}
	stash_pop(v, k);
	lp->rx_dirty |= 1u << rxq;
	lp->st.rx_delivered++;
	lp->st.rx_queue[rxq]++;
}

/* --------------------------------------------------------- delivery -- */

static bool mac_in(const uint8_t (*tbl)[6], uint32_t n, const uint8_t *mac)
{
	for (uint32_t i = 0; i < n; i++)
		if (!memcmp(tbl[i], mac, 6))
			return true;
	return false;
}

static bool mac_accepted(const struct gv_loop *lp, const uint8_t *dst)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (!gv_loop_has(lp, GV_NET_F_CTRL_RX) || lp->promisc)
		return true;
	if (!memcmp(dst, bcast, 6))
		return true;
	if (dst[0] & 1)
		return lp->allmulti || mac_in(lp->mc, lp->n_mc, dst);
	return !memcmp(dst, lp->mac, 6) || mac_in(lp->uc, lp->n_uc, dst);
}

/* Receive one frame that was transmitted on `pair`; h: its RX header. */
static void deliver(struct gv_loop *lp, uint16_t pair, struct gv_loop_hdr *h, const uint8_t *pkt,
		    uint32_t len)
{
	const struct gv_loop_hash *hp = gv_loop_has(lp, GV_NET_F_RSS) ? &lp->rss_hash : &lp->rep_hash;
	struct pkt_info pi;
	uint32_t hash = 0;
	uint16_t report = REPORT_NONE, rxq;
	bool hashed = false;

	lp->st.tx_packets++;
	if (len < ETH_HLEN) {
		lp->st.drop_bad_hdr++;
		return;
	}
	if (!mac_accepted(lp, pkt)) {
		lp->st.drop_mac++;
		return;
	}
	parse(pkt, len, &pi);
	if (gv_loop_has(lp, GV_NET_F_CTRL_VLAN) && pi.has_vlan &&
	    !(lp->vlan[pi.vid / 64] & (1ull << (pi.vid % 64)))) {
		lp->st.drop_vlan++;
		return;
	}
	if (gv_loop_has(lp, GV_NET_F_MTU) && h->gso_type == GV_NET_HDR_GSO_NONE &&
	    len > (uint32_t)lp->mtu + ETH_HLEN + (pi.has_vlan ? 4u : 0u)) {
		lp->st.drop_too_big++;
		return;
	}
	if (lp->rss || gv_loop_has(lp, GV_NET_F_HASH_REPORT))
		hashed = frame_hash(hp, pkt, len, &pi, &hash, &report);
	if (lp->rss)
		rxq = hashed ? lp->table[hash & lp->rss_mask] : lp->unclassified;
	else
		rxq = pair < lp->pairs ? pair : (uint16_t)(pair % lp->pairs);
	if (gv_loop_has(lp, GV_NET_F_HASH_REPORT)) {
		h->hash_value = rte_cpu_to_le_32(hashed ? hash : 0);
		h->hash_report = rte_cpu_to_le_16(report);
	}
	if (rxq >= gv_loop_vq_pairs(lp)) {
		lp->st.drop_no_buffer++;
		return;
	}
	rx_write(lp, rxq, h, pkt, len);
}

/* ------------------------------------------------------------ transmit -- */

/* The receive header for a frame whose L4 checksum is known good or not. */
static void rx_hdr(const struct gv_loop *lp, struct gv_loop_hdr *h, bool csum_good)
{
	memset(h, 0, sizeof(*h));
	if (csum_good && gv_loop_has(lp, GV_NET_F_GUEST_CSUM))
		h->flags = GV_NET_HDR_F_DATA_VALID;
}

/*
 * The driver's GSO packet, whole, to a receiver that negotiated the same
 * GSO kind: NEEDS_CSUM with the pseudo-header sum in place (spec 5.1.6.4).
 */
static void tx_lro(struct gv_loop *lp, uint16_t pair, const struct gv_loop_hdr *th, uint8_t *p,
		   uint32_t len, const struct pkt_info *pi, uint32_t hl)
{
	struct gv_loop_hdr h;
	uint32_t l4_len = len - pi->l4;
	uint32_t l3_len = len - pi->l3;

	if (pi->ipv == 4 && l3_len <= 0xffff) {
		wr16(p + pi->l3 + 2, (uint16_t)l3_len);
		ipv4_hdr_csum(p, pi);
	} else if (pi->ipv == 6 && l3_len - 40 <= 0xffff) {
		wr16(p + pi->l3 + 4, (uint16_t)(l3_len - 40));
	}
	wr16(p + pi->l4 + 16, csum_fold(pseudo_sum(p, pi, l4_len)));
	memset(&h, 0, sizeof(h));
	h.flags = GV_NET_HDR_F_NEEDS_CSUM;
	h.gso_type = th->gso_type;
	h.gso_size = th->gso_size;
	h.hdr_len = rte_cpu_to_le_16((uint16_t)hl);
	h.csum_start = rte_cpu_to_le_16((uint16_t)pi->l4);
	h.csum_offset = rte_cpu_to_le_16(16);
	lp->st.rx_lro++;
	deliver(lp, pair, &h, p, len);
}

/* Cut a TCP GSO packet into MSS-sized segments, each fully checksummed. */
static void tx_segment(struct gv_loop *lp, uint16_t pair, const uint8_t *p, uint32_t len,
		       const struct pkt_info *pi, uint32_t hl, uint32_t mss)
{
	const uint32_t payload = len - hl, nseg = (payload + mss - 1) / mss;
	const uint32_t seq0 = rd32(p + pi->l4 + 4);
	const uint16_t id0 = pi->ipv == 4 ? rd16(p + pi->l3 + 4) : 0;
	uint8_t *s = lp->seg;

	lp->st.tx_gso++;
	for (uint32_t k = 0; k < nseg; k++) {
		uint32_t n = RTE_MIN(mss, payload - k * mss), l4_len = hl - pi->l4 + n;
		uint8_t *tcp = s + pi->l4;
		struct gv_loop_hdr h;

		memcpy(s, p, hl);
		memcpy(s + hl, p + hl + k * mss, n);
		if (pi->ipv == 4) {
			wr16(s + pi->l3 + 2, (uint16_t)(hl - pi->l3 + n));
			wr16(s + pi->l3 + 4, (uint16_t)(id0 + k));
			ipv4_hdr_csum(s, pi);
		} else {
			wr16(s + pi->l3 + 4, (uint16_t)(hl - pi->l3 - 40 + n));
		}
		wr32(tcp + 4, seq0 + k * mss);
		if (k + 1 < nseg)
			tcp[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (k > 0)
			tcp[13] &= (uint8_t)~TCP_CWR;
		wr16(tcp + 16, 0);
		wr16(tcp + 16, (uint16_t)~csum_fold(csum_add(pseudo_sum(s, pi, l4_len), tcp, l4_len)));
		rx_hdr(lp, &h, true);
		deliver(lp, pair, &h, s, hl + n);
	}
}

/* A GSO packet: check it, then hand it on whole (LRO) or segmented. */
static bool tx_gso(struct gv_loop *lp, uint16_t pair, const struct gv_loop_hdr *th, uint8_t *p,
		   uint32_t len)
{
	uint8_t type = th->gso_type;
	uint32_t mss = rte_le_to_cpu_16(th->gso_size), hl;
	unsigned int host_f = type == GV_NET_HDR_GSO_TCPV4 ? GV_NET_F_HOST_TSO4 : GV_NET_F_HOST_TSO6;
	unsigned int guest_f = type == GV_NET_HDR_GSO_TCPV4 ? GV_NET_F_GUEST_TSO4 : GV_NET_F_GUEST_TSO6;
	struct pkt_info pi;

	if ((type != GV_NET_HDR_GSO_TCPV4 && type != GV_NET_HDR_GSO_TCPV6) ||
	    !gv_loop_has(lp, host_f) || mss == 0)
		return false;
	parse(p, len, &pi);
	if (pi.ipv != (type == GV_NET_HDR_GSO_TCPV4 ? 4 : 6) || pi.frag ||
	    pi.proto != PROTO_TCP || pi.l4 + 20 > len)
		return false;
	hl = pi.l4 + (p[pi.l4 + 12] >> 4) * 4u;
	if ((p[pi.l4 + 12] >> 4) < 5 || hl >= len || hl + mss > GV_LOOP_SEG_BUF ||
	    hl - pi.l3 + mss > 0xffff)
		return false;
	if (gv_loop_has(lp, guest_f))
		tx_lro(lp, pair, th, p, len, &pi, hl);
	else
		tx_segment(lp, pair, p, len, &pi, hl, mss);
	return true;
}

/* NEEDS_CSUM: ones' complement over [start, end) stored at start + off. */
static bool tx_csum(struct gv_loop *lp, const struct gv_loop_hdr *th, uint8_t *p, uint32_t len)
{
	uint32_t start = rte_le_to_cpu_16(th->csum_start);
	uint32_t at = start + rte_le_to_cpu_16(th->csum_offset);
	uint16_t sum;

	if (!gv_loop_has(lp, GV_NET_F_CSUM) || start >= len || at + 2 > len)
		return false;
	sum = (uint16_t)~csum_fold(csum_add(0, p + start, len - start));
	wr16(p + at, sum ? sum : 0xffff);
	lp->st.tx_csum++;
	return true;
}

/* One chain from TX queue `pair`. */
static void tx_chain(struct gv_loop *lp, uint16_t pair, struct gv_vqd *d, const struct gv_chain *c)
{
	const uint32_t hlen = lp->hdr_size;
	struct gv_loop_hdr th, h;
	uint8_t *p = lp->pkt;
	uint32_t len;
	struct pkt_info pi;

	if (c->out_len < hlen || c->out_len - hlen > GV_LOOP_MAX_FRAME) {
		lp->st.drop_bad_hdr++;
		return;
	}
	memset(&th, 0, sizeof(th));
	gv_vqd_read(d, c, 0, &th, hlen);
	len = gv_vqd_read(d, c, hlen, p, c->out_len - hlen);
	if (!(lp->status & GV_NET_S_LINK_UP)) {
		lp->st.drop_link_down++;
		return;
	}
	if (th.gso_type != GV_NET_HDR_GSO_NONE) {
		if (!tx_gso(lp, pair, &th, p, len))
			lp->st.drop_bad_hdr++;
		return;
	}
	if (th.flags & GV_NET_HDR_F_NEEDS_CSUM) {
		if (!tx_csum(lp, &th, p, len)) {
			lp->st.drop_bad_hdr++;
			return;
		}
		rx_hdr(lp, &h, true);
	} else {
		bool good = false;

		if (gv_loop_has(lp, GV_NET_F_GUEST_CSUM)) {
			parse(p, len, &pi);
			good = l4_csum_ok(p, len, &pi);
		}
		rx_hdr(lp, &h, good);
	}
	deliver(lp, pair, &h, p, len);
}

static void publish_rx(struct gv_loop *lp)
{
	uint32_t dirty = lp->rx_dirty;

	lp->rx_dirty = 0;
	while (dirty) {
		unsigned int q = (unsigned int)__builtin_ctz(dirty);

		dirty &= dirty - 1;
		if (lp->vq[2 * q].d)
			gv_vqd_publish(lp->vq[2 * q].d);
	}
}

/* Notify on TX queue `pair`: send every chain, return them all. */
void gv_loop_tx(struct gv_loop *lp, uint16_t pair)
{
	const uint16_t idx = (uint16_t)(2 * pair + 1);
	struct gv_vqd *d = lp->vq[idx].d;
	const bool in_order = gv_loop_has(lp, GV_F_IN_ORDER);
	struct gv_chain *c = lp->chain;
	uint32_t ndesc = 0;
	uint16_t count = 0, last = 0;
	int ret;

	rx_release(lp);
	while ((ret = gv_vqd_take(d, c)) == 1) {
		lp->st.tx_chains++;
		tx_chain(lp, pair, d, c);
		if (in_order) {
			/* One used entry for the whole batch (spec 2.7.9 / 2.8.21). */
			count++;
			ndesc += c->ndesc;
			last = c->id;
		} else {
			gv_vqd_push(d, c->id, c->ndesc, 0);
		}
	}
	if (ret < 0)
		gv_loop_queue_broken(lp, idx);
	if (count)
		gv_vqd_push_in_order_batch(d, last, 0, count, ndesc);
	gv_vqd_publish(d);
	publish_rx(lp);
}
