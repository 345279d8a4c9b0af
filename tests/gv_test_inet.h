/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_inet.h - TCP and UDP over IPv4 and IPv6 frames, optionally
 * 802.1Q-tagged, for the offload tests against net_vhost: build a frame
 * into a flat buffer (correct checksums), put it into a chain of mbufs,
 * copy a received chain out, parse it, and check it. Every checksum here
 * is computed from the bytes by this file (big-endian 16-bit words), not
 * by DPDK's helpers, so a test compares the driver and the vhost library
 * against an independent reference. Header only; no cmocka.
 */
#ifndef GV_TEST_INET_H
#define GV_TEST_INET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#define GTI_MAX_FRAME 65600u
#define GTI_PROTO_TCP 6
#define GTI_PROTO_UDP 17

struct gti_spec {
	bool v6, udp;
	bool tagged; /* the frame carries an 802.1Q tag with `vid` */
	uint16_t vid;
	uint32_t payload; /* bytes after the L4 header */
	uint8_t seed; /* payload pattern */
	uint8_t tcp_flags; /* 0: ACK */
};

/* Where the layers are, as parsed from a frame. */
struct gti_info {
	bool v6, udp, tagged;
	uint16_t vid;
	uint32_t l2, l3, l4; /* lengths */
	uint32_t len; /* frame length */
	uint32_t csum_at; /* offset of the L4 checksum field */
};

static inline uint8_t gti_pat(uint8_t seed, uint32_t i)
{
	return (uint8_t)(i * 7u + seed + (i >> 8) * 3u);
}

static inline void gti_w16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t gti_r16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void gti_w32(uint8_t *p, uint32_t v)
{
	gti_w16(p, (uint16_t)(v >> 16));
	gti_w16(p + 2, (uint16_t)v);
}

static inline uint32_t gti_r32(const uint8_t *p)
{
	return (uint32_t)gti_r16(p) << 16 | gti_r16(p + 2);
}

/* Ones' complement sum of bytes as big-endian words (odd tail padded). */
static inline uint64_t gti_sum(uint64_t acc, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += gti_r16(p + i);
	if (i < n)
		acc += (uint32_t)p[i] << 8;
	return acc;
}

static inline uint16_t gti_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* The pseudo-header sum (addresses, protocol, and `l4len` if with_len). */
static inline uint64_t gti_pseudo(const uint8_t *f, const struct gti_info *in, uint32_t l4len,
				  bool with_len)
{
	const uint8_t *ip = f + in->l2;
	uint64_t acc = in->udp ? GTI_PROTO_UDP : GTI_PROTO_TCP;

	acc = in->v6 ? gti_sum(acc, ip + 8, 32) : gti_sum(acc, ip + 12, 8);
	if (with_len)
		acc += (l4len >> 16) + (l4len & 0xffff);
	return acc;
}

/* Parse Ethernet [802.1Q] IPv4|IPv6 TCP|UDP; false if it is not one. */
static inline bool gti_parse(const uint8_t *f, uint32_t len, struct gti_info *in)
{
	uint16_t et;

	memset(in, 0, sizeof(*in));
	in->len = len;
	if (len < 14)
		return false;
	in->l2 = 14;
	et = gti_r16(f + 12);
	if (et == 0x8100) {
		if (len < 18)
			return false;
		in->tagged = true;
		in->vid = gti_r16(f + 14) & 0xfff;
		et = gti_r16(f + 16);
		in->l2 = 18;
	}
	if (et == 0x0800) {
		if (len < in->l2 + 20 || (f[in->l2] >> 4) != 4)
			return false;
		in->l3 = (f[in->l2] & 0xfu) * 4u;
		in->udp = f[in->l2 + 9] == GTI_PROTO_UDP;
		if (!in->udp && f[in->l2 + 9] != GTI_PROTO_TCP)
			return false;
	} else if (et == 0x86dd) {
		if (len < in->l2 + 40)
			return false;
		in->v6 = true;
		in->l3 = 40;
		in->udp = f[in->l2 + 6] == GTI_PROTO_UDP;
		if (!in->udp && f[in->l2 + 6] != GTI_PROTO_TCP)
			return false;
	} else {
		return false;
	}
	if (len < in->l2 + in->l3 + 20)
		return false;
	in->l4 = in->udp ? 8u : (uint32_t)(f[in->l2 + in->l3 + 12] >> 4) * 4u;
	in->csum_at = in->l2 + in->l3 + (in->udp ? 6u : 16u);
	return len >= in->l2 + in->l3 + in->l4;
}

/* The L4 checksum over the frame as it is (field included) verifies. */
static inline bool gti_l4_ok(const uint8_t *f, const struct gti_info *in)
{
	uint32_t l4len = in->len - in->l2 - in->l3;

	if (in->udp && gti_r16(f + in->csum_at) == 0)
		return false; /* "no checksum": not what any test wants */
	return gti_fold(gti_sum(gti_pseudo(f, in, l4len, true), f + in->l2 + in->l3, l4len)) ==
	       0xffff;
}

/* The L4 checksum the frame should carry (field taken as zero). */
static inline uint16_t gti_l4_csum(const uint8_t *f, const struct gti_info *in, bool with_len)
{
	uint32_t l4len = in->len - in->l2 - in->l3, at = in->csum_at - in->l2 - in->l3;
	const uint8_t *l4 = f + in->l2 + in->l3;
	uint64_t acc = gti_pseudo(f, in, l4len, with_len);
	uint16_t c;

	acc = gti_sum(acc, l4, at);
	acc = gti_sum(acc, l4 + at + 2, l4len - at - 2);
	c = (uint16_t)~gti_fold(acc);
	return in->udp && c == 0 ? 0xffff : c;
}

static inline bool gti_ip4_ok(const uint8_t *f, const struct gti_info *in)
{
	return in->v6 || gti_fold(gti_sum(0, f + in->l2, in->l3)) == 0xffff;
}

static inline void gti_ip4_fix(uint8_t *f, const struct gti_info *in)
{
	if (in->v6)
		return;
	gti_w16(f + in->l2 + 10, 0);
	gti_w16(f + in->l2 + 10, (uint16_t)~gti_fold(gti_sum(0, f + in->l2, in->l3)));
}

/*
 * Build the frame of `s` into f (GTI_MAX_FRAME bytes) with correct
 * checksums; returns its length. IPv4 total length is left 0 when the
 * datagram does not fit its 16 bits (a GSO packet).
 */
static inline uint32_t gti_build(uint8_t *f, const struct gti_spec *s)
{
	uint32_t l2 = s->tagged ? 18 : 14, l3 = s->v6 ? 40 : 20, l4 = s->udp ? 8 : 20;
	uint32_t len = l2 + l3 + l4 + s->payload;
	uint8_t *ip = f + l2, *th = ip + l3;
	struct gti_info in;

	memset(f, 0, l2 + l3 + l4);
	for (int i = 0; i < 6; i++) {
		f[i] = (uint8_t)(0x52 + i); /* 52:53:..: unicast, locally administered */
		f[6 + i] = (uint8_t)(0x02 + i);
	}
	if (s->tagged) {
		gti_w16(f + 12, 0x8100);
		gti_w16(f + 14, (uint16_t)(3u << 13 | s->vid));
	}
	gti_w16(f + l2 - 2, s->v6 ? 0x86dd : 0x0800);
	if (s->v6) {
		ip[0] = 0x60;
		gti_w16(ip + 4, (uint16_t)(l4 + s->payload));
		ip[6] = s->udp ? GTI_PROTO_UDP : GTI_PROTO_TCP;
		ip[7] = 64;
		ip[8] = 0xfd;
		ip[23] = 1;
		ip[24] = 0xfd;
		ip[39] = (uint8_t)(2 + s->seed);
	} else {
		uint32_t tl = l3 + l4 + s->payload;

		ip[0] = 0x45;
		gti_w16(ip + 2, tl > 0xffff ? 0 : (uint16_t)tl);
		gti_w16(ip + 4, (uint16_t)(100 + s->seed));
		ip[8] = 64;
		ip[9] = s->udp ? GTI_PROTO_UDP : GTI_PROTO_TCP;
		gti_w32(ip + 12, 0x0a000001);
		gti_w32(ip + 16, 0x0a000002u + s->seed);
	}
	gti_w16(th, 1024);
	gti_w16(th + 2, (uint16_t)(5000 + s->seed));
	if (s->udp) {
		gti_w16(th + 4, (uint16_t)(l4 + s->payload));
	} else {
		gti_w32(th + 4, 1000000);
		gti_w32(th + 8, 77);
		th[12] = 5 << 4;
		th[13] = s->tcp_flags ? s->tcp_flags : 0x10;
		gti_w16(th + 14, 65535);
	}
	for (uint32_t i = 0; i < s->payload; i++)
		th[l4 + i] = gti_pat(s->seed, i);
	gti_parse(f, len, &in);
	gti_ip4_fix(f, &in);
	gti_w16(f + in.csum_at, gti_l4_csum(f, &in, true));
	return len;
}

/*
 * A partial L4 checksum (NEEDS_CSUM: the field holds a pseudo-header sum)
 * completed as a device or an app's TX offload would: the ones' complement
 * of the sum over the L4 bytes as they are.
 */
static inline uint16_t gti_complete(const uint8_t *f, const struct gti_info *in)
{
	uint16_t c = (uint16_t)~gti_fold(gti_sum(0, f + in->l2 + in->l3, in->len - in->l2 - in->l3));

	return in->udp && c == 0 ? 0xffff : c;
}

/* The payload of a frame parsed as `in` is the pattern of `seed`. */
static inline bool gti_payload_ok(const uint8_t *f, const struct gti_info *in, uint8_t seed,
				  uint32_t payload)
{
	const uint8_t *p = f + in->l2 + in->l3 + in->l4;

	if (in->len != in->l2 + in->l3 + in->l4 + payload)
		return false;
	for (uint32_t i = 0; i < payload; i++)
		if (p[i] != gti_pat(seed, i))
			return false;
	return true;
}

/* Copy a chain out; returns the bytes copied (0 if it does not fit). */
static inline uint32_t gti_copy(const struct rte_mbuf *m, uint8_t *f, uint32_t cap)
{
	uint32_t off = 0;

	if (m->pkt_len > cap)
		return 0;
	for (; m; m = m->next) {
		memcpy(f + off, rte_pktmbuf_mtod(m, const uint8_t *), m->data_len);
		off += m->data_len;
	}
	return off;
}

#endif /* GV_TEST_INET_H */
