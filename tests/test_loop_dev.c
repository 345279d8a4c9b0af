/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loop_dev.c - the loopback device (net_gvirtio_loop) driven
 * directly through its transport ops by a small hand-made driver on the
 * core's driver end, bypassing the PMD's datapath and control path:
 * features the PMD does not negotiate yet (RSS, HASH_REPORT), every
 * control command and its malformed variants, bad transmit headers, a
 * malformed chain, mergeable buffers spread and held, IN_ORDER batches.
 * Both ring layouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <ethdev_driver.h>
#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "gv_loop.h"
#include "gv_queue.h"

#define QSZ 64
#define BUFSZ 2048
#define MAXQ 4

static bool packed; /* the layout of the current group */
static unsigned int port_seq;

/* The Microsoft RSS verification key. */
static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ------------------------------------------------------- the "driver" -- */

struct raw {
	char name[32];
	uint16_t port;
	struct gv_hw *hw;
	const struct gv_transport_ops *ops;
	uint64_t f; /* negotiated */
	uint16_t hdr; /* header size */
	struct gv_queue rx[MAXQ], tx[MAXQ], cvq;
	uint8_t buf[MAXQ][QSZ][BUFSZ]; /* RX buffers, by queue and slot */
	uint8_t cbuf[4096];
	void *mem[4 * MAXQ + 2]; /* rings and driver states, freed at close */
	unsigned int n_mem;
};

static void raw_queue(struct raw *r, struct gv_queue *q, uint16_t idx)
{
	enum gv_layout l = (r->f & GV_BIT(GV_F_RING_PACKED)) ? GV_LAYOUT_PACKED : GV_LAYOUT_SPLIT;
	struct gv_vq_config cfg = { 0 };

	cfg.layout = l;
	cfg.barrier = GV_BARRIER_SMP;
	cfg.num = QSZ;
	cfg.align = 4;
	cfg.ring = aligned_alloc(4096, gv_align_up(gv_ring_size(l, QSZ, 4), 4096));
	cfg.ring_iova = (uint64_t)(uintptr_t)cfg.ring;
	cfg.features = ((r->f & GV_BIT(GV_F_RING_EVENT_IDX)) ? GV_VQ_F_EVENT_IDX : 0) |
		       ((r->f & GV_BIT(GV_F_IN_ORDER)) ? GV_VQ_F_IN_ORDER : 0);
	memset(q, 0, sizeof(*q));
	q->vq = aligned_alloc(64, gv_align_up(gv_vq_state_size(l, QSZ), 64));
	assert_non_null(cfg.ring);
	assert_non_null(q->vq);
	r->mem[r->n_mem++] = cfg.ring;
	r->mem[r->n_mem++] = q->vq;
	assert_int_equal(gv_vq_init(q->vq, &cfg), 0);
	q->hw = r->hw;
	q->vq_idx = idx;
	q->size = QSZ;
	q->kickfd = q->callfd = -1;
	assert_int_equal(r->ops->setup_queue(r->hw, q), 0);
}

/* Probe `args`, negotiate (offered & want), set up `pairs` pairs + cvq, start. */
static struct raw *raw_open(const char *args, uint64_t want, uint16_t pairs)
{
	struct raw *r = calloc(1, sizeof(*r));
	char buf[256];
	uint64_t off;

	assert_non_null(r);
	snprintf(r->name, sizeof(r->name), "net_gvirtio_loop_raw%u", port_seq++);
	snprintf(buf, sizeof(buf), "%s,packed_vq=%d%s%s", r->name, packed, *args ? "," : "", args);
	assert_int_equal(rte_dev_probe(buf), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(r->name, &r->port), 0);
	r->hw = rte_eth_devices[r->port].data->dev_private;
	r->ops = gv_ops(r->hw);
	assert_int_equal(r->ops->reset(r->hw), 0);
	assert_int_equal(r->ops->get_features(r->hw, &off), 0);
	r->f = off & (want | GV_BIT(GV_F_VERSION_1) | GV_BIT(GV_F_RING_PACKED) |
		      GV_BIT(GV_F_RING_EVENT_IDX) | GV_BIT(GV_NET_F_CTRL_VQ));
	assert_int_equal(r->ops->set_features(r->hw, r->f), 0);
	r->hdr = (r->f & GV_BIT(GV_NET_F_HASH_REPORT)) ? 20 : 12;
	for (uint16_t i = 0; i < pairs; i++) {
		raw_queue(r, &r->rx[i], (uint16_t)(2 * i));
		raw_queue(r, &r->tx[i], (uint16_t)(2 * i + 1));
	}
	raw_queue(r, &r->cvq, (uint16_t)(2 * ((r->f & (GV_BIT(GV_NET_F_MQ) | GV_BIT(GV_NET_F_RSS)))
						   ? MAXQ : 1)));
	assert_int_equal(r->ops->start(r->hw), 0);
	return r;
}

static void raw_close(struct raw *r)
{
	r->ops->stop(r->hw);
	/* The device forgot the rings at stop: they are ours to free. */
	for (unsigned int i = 0; i < r->n_mem; i++)
		free(r->mem[i]);
	assert_int_equal(rte_eal_hotplug_remove("vdev", r->name), 0);
	free(r);
}

static void kick(struct raw *r, struct gv_queue *q)
{
	if (gv_vq_kick_prepare(q->vq))
		r->ops->notify(r->hw, q);
}

static struct gv_loop_stats st(struct raw *r)
{
	struct gv_loop_stats s;

	assert_int_equal(rte_pmd_gvirtio_loop_stats(r->port, &s), 0);
	return s;
}

/* Post `n` RX buffers of `len` bytes on queue q (slots from `first`). */
static void rx_post(struct raw *r, uint16_t q, uint16_t first, uint16_t n, uint32_t len)
{
	for (uint16_t i = 0; i < n; i++) {
		struct gv_seg s = { (uint64_t)(uintptr_t)r->buf[q][first + i], len };

		assert_int_equal(gv_vq_add(r->rx[q].vq, &s, 0, 1, r->buf[q][first + i], false), 0);
	}
	kick(r, &r->rx[q]);
}

/* Transmit one frame with header `h` (NULL: zeroes) on pair `pair`. */
static void tx_send(struct raw *r, uint16_t pair, const void *h, const void *frame, uint32_t len)
{
	static uint8_t b[70000];
	struct gv_seg s = { (uint64_t)(uintptr_t)b, r->hdr + len };
	void *ck[QSZ];

	memset(b, 0, r->hdr);
	if (h)
		memcpy(b, h, r->hdr);
	memcpy(b + r->hdr, frame, len);
	assert_int_equal(gv_vq_add(r->tx[pair].vq, &s, 1, 0, b, false), 0);
	kick(r, &r->tx[pair]);
	/* Every chain comes back at once (IN_ORDER: maybe as one batch). */
	if (r->f & GV_BIT(GV_F_IN_ORDER))
		assert_int_equal(gv_vq_reclaim_in_order(r->tx[pair].vq, ck, QSZ), 1);
	else
		assert_int_equal(gv_vq_get_used(r->tx[pair].vq, ck, NULL, QSZ), 1);
}

/* One used RX buffer of queue q: its data, or NULL. */
static uint8_t *rx_get(struct raw *r, uint16_t q, uint32_t *len)
{
	void *ck;

	if (gv_vq_get_used(r->rx[q].vq, &ck, len, 1) != 1)
		return NULL;
	return ck;
}

/* Send a control command; the ack, or -1 when no answer came. */
static int ctrl(struct raw *r, uint8_t cls, uint8_t cmd, const void *data, uint32_t len)
{
	struct gv_seg s[3];
	uint16_t n = 0;
	uint32_t ulen;
	void *ck;

	r->cbuf[0] = cls;
	r->cbuf[1] = cmd;
	if (len)
		memcpy(r->cbuf + 2, data, len);
	r->cbuf[3000] = 0xee;
	s[n++] = (struct gv_seg){ (uint64_t)(uintptr_t)r->cbuf, 2 };
	if (len)
		s[n++] = (struct gv_seg){ (uint64_t)(uintptr_t)(r->cbuf + 2), len };
	s[n++] = (struct gv_seg){ (uint64_t)(uintptr_t)(r->cbuf + 3000), 1 };
	assert_int_equal(gv_vq_add(r->cvq.vq, s, (uint16_t)(n - 1), 1, r->cbuf, false), 0);
	kick(r, &r->cvq);
	if (gv_vq_get_used(r->cvq.vq, &ck, &ulen, 1) != 1)
		return -1;
	assert_int_equal(ulen, 1);
	return r->cbuf[3000];
}

/* A TCP or UDP / IPv4 frame src:sport -> dst:dport with `plen` payload. */
static uint32_t ip4_frame(uint8_t *b, const uint8_t *dmac, uint8_t proto, uint32_t src,
			  uint32_t dst, uint16_t sport, uint16_t dport, uint32_t plen)
{
	uint32_t l4 = proto == 6 ? 20 : 8, len = 34 + l4 + plen;

	memset(b, 0, len);
	memcpy(b, dmac, 6);
	b[6] = 0x02;
	b[12] = 0x08;
	b[14] = 0x45;
	b[16] = (uint8_t)((len - 14) >> 8);
	b[17] = (uint8_t)(len - 14);
	b[22] = 64;
	b[23] = proto;
	for (int i = 0; i < 4; i++) {
		b[26 + i] = (uint8_t)(src >> (24 - 8 * i));
		b[30 + i] = (uint8_t)(dst >> (24 - 8 * i));
	}
	b[34] = (uint8_t)(sport >> 8);
	b[35] = (uint8_t)sport;
	b[36] = (uint8_t)(dport >> 8);
	b[37] = (uint8_t)dport;
	if (proto == 6)
		b[46] = 5 << 4;
	for (uint32_t i = 0; i < plen; i++)
		b[34 + l4 + i] = (uint8_t)i;
	return len;
}

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* ------------------------------------------------------------- toeplitz -- */

static void test_toeplitz(void **state)
{
	/* Microsoft's RSS verification suite: src, dst, sport, dport. */
	static const struct {
		uint8_t in[12];
		uint32_t ip, tcp;
	} v4[] = {
		{ { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 }, 0x323e8fc2, 0x51ccc178 },
		{ { 199, 92, 111, 2, 65, 69, 140, 83, 0x37, 0x96, 0x12, 0x83 }, 0xd718262a, 0xc626b0ea },
		{ { 24, 19, 198, 95, 12, 22, 207, 184, 0x32, 0x62, 0x94, 0x88 }, 0xd2d0a5de, 0x5c2b394a },
	};
	/* IPv6: 3ffe:2501:200:1fff::7 -> 3ffe:2501:200:3::1, 2794 -> 1766 */
	static const uint8_t v6[36] = {
		0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 7,
		0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 1,
		0x0a, 0xea, 0x06, 0xe6,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		assert_int_equal(gv_loop_toeplitz(ms_key, 40, v4[i].in, 8), v4[i].ip);
		assert_int_equal(gv_loop_toeplitz(ms_key, 40, v4[i].in, 12), v4[i].tcp);
	}
	assert_int_equal(gv_loop_toeplitz(ms_key, 40, v6, 32), 0x2cc18cd5);
	assert_int_equal(gv_loop_toeplitz(ms_key, 40, v6, 36), 0x40207d3d);
}

/* ------------------------------------------------------------------ RSS -- */

/* RSS_CONFIG payload: table of `entries`, key `ms_key`; returns length. */
static uint32_t rss_cmd(uint8_t *d, uint32_t types, uint16_t entries, const uint16_t *table,
			uint16_t uncl, uint16_t max_tx, uint8_t klen)
{
	uint32_t off = 8 + 2u * entries;
	uint16_t mask = (uint16_t)(entries - 1);

	memcpy(d, &types, 4);
	memcpy(d + 4, &mask, 2);
	memcpy(d + 6, &uncl, 2);
	memcpy(d + 8, table, 2u * entries);
	memcpy(d + off, &max_tx, 2);
	d[off + 2] = klen;
	memcpy(d + off + 3, ms_key, klen);
	return off + 3 + klen;
}

static void test_rss(void **state)
{
	struct raw *r = raw_open("queues=4,features=0x1000000000000000",
				 GV_BIT(GV_NET_F_RSS) | GV_BIT(GV_NET_F_MQ), MAXQ);
	uint16_t table[128];
	uint8_t cmd[512], f[256];
	uint32_t n, len;
	struct gv_loop_stats s;

	(void)state;
	assert_true(r->f & GV_BIT(GV_NET_F_RSS));
	for (int i = 0; i < 128; i++)
		table[i] = (uint16_t)(i % 4);
	table[0x78] = 2; /* the MS TCP vector: 0x51ccc178 & 127 */
	table[0x42] = 1; /* the MS IPv4 vector: 0x323e8fc2 & 127 */
	for (uint16_t q = 0; q < MAXQ; q++)
		rx_post(r, q, 0, 8, BUFSZ);
	n = rss_cmd(cmd, 0x3, 128, table, 3, 4, 40); /* IPv4 | TCPv4 */
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 0);
	s = st(r);
	assert_true(s.rss);
	assert_int_equal(s.hash_types, 3);
	assert_int_equal(s.rss_table_len, 128);

	/* TCP: hashed with the ports. */
	len = ip4_frame(f, bcast, 6, 0x420995bb, 0xa18e6450, 2794, 1766, 10);
	tx_send(r, 0, NULL, f, len);
	assert_non_null(rx_get(r, 2, &n));
	/* UDP (UDPv4 not enabled): hashed on the addresses only. */
	len = ip4_frame(f, bcast, 17, 0x420995bb, 0xa18e6450, 2794, 1766, 10);
	tx_send(r, 0, NULL, f, len);
	assert_non_null(rx_get(r, 1, &n));
	/* Not IP: the unclassified queue. */
	memset(f, 0, 64);
	memcpy(f, bcast, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	tx_send(r, 1, NULL, f, 64);
	assert_non_null(rx_get(r, 3, &n));
	assert_int_equal(n, 12 + 64);
	/* VQ_PAIRS_SET returns to automatic steering: pair i -> queue i. */
	{
		uint16_t pairs = 4;

		assert_int_equal(ctrl(r, 4, 0, &pairs, 2), 0);
	}
	assert_false(st(r).rss);
	len = ip4_frame(f, bcast, 6, 0x420995bb, 0xa18e6450, 2794, 1766, 10);
	tx_send(r, 3, NULL, f, len);
	assert_non_null(rx_get(r, 3, &n));

	/* Malformed RSS configurations change nothing. */
	n = rss_cmd(cmd, 0x3, 128, table, 3, 4, 40);
	cmd[0] = 0x40; /* IP_EX: not supported */
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 1);
	n = rss_cmd(cmd, 0x3, 3, table, 0, 4, 40); /* 3 entries: mask not 2^n-1 */
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 1);
	table[5] = 4; /* no such queue */
	n = rss_cmd(cmd, 0x3, 128, table, 0, 4, 40);
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 1);
	table[5] = 1;
	n = rss_cmd(cmd, 0x3, 128, table, 4, 4, 40); /* unclassified out of range */
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 1);
	n = rss_cmd(cmd, 0x3, 128, table, 0, 0, 40); /* max_tx_vq 0 */
	assert_int_equal(ctrl(r, 4, 1, cmd, n), 1);
	n = rss_cmd(cmd, 0x3, 128, table, 0, 4, 40);
	assert_int_equal(ctrl(r, 4, 1, cmd, n - 1), 1); /* key cut short */
	assert_int_equal(ctrl(r, 4, 1, cmd, 7), 1);
	assert_int_equal(ctrl(r, 4, 2, cmd, n), 1); /* HASH_CONFIG: no HASH_REPORT */
	assert_false(st(r).rss);
	raw_close(r);
}

/* --------------------------------------------------------- hash report -- */

static void test_hash_report(void **state)
{
	struct raw *r = raw_open("features=0x200000000000000", GV_BIT(GV_NET_F_HASH_REPORT), 1);
	uint8_t cmd[64], f[256], *b;
	uint32_t n, len, hv;
	uint16_t rep;

	(void)state;
	assert_int_equal(r->hdr, 20);
	rx_post(r, 0, 0, 8, BUFSZ);
	/* Before HASH_CONFIG: nothing is hashed. */
	len = ip4_frame(f, bcast, 6, 0x420995bb, 0xa18e6450, 2794, 1766, 10);
	tx_send(r, 0, NULL, f, len);
	b = rx_get(r, 0, &n);
	assert_non_null(b);
	assert_int_equal(n, 20 + len);
	memcpy(&rep, b + 16, 2);
	assert_int_equal(rep, 0);
	assert_memory_equal(b + 20, f, len);
	/* HASH_CONFIG: IPv4, TCPv4, UDPv4 (the table fields are reserved). */
	memset(cmd, 0, sizeof(cmd));
	cmd[0] = 0x7;
	cmd[12] = 40;
	memcpy(cmd + 13, ms_key, 40);
	assert_int_equal(ctrl(r, 4, 2, cmd, 53), 0);
	tx_send(r, 0, NULL, f, len);
	b = rx_get(r, 0, &n);
	assert_non_null(b);
	memcpy(&hv, b + 12, 4);
	memcpy(&rep, b + 16, 2);
	assert_int_equal(hv, 0x51ccc178);
	assert_int_equal(rep, 2); /* TCPv4 */
	len = ip4_frame(f, bcast, 17, 0x420995bb, 0xa18e6450, 2794, 1766, 10);
	tx_send(r, 0, NULL, f, len);
	b = rx_get(r, 0, &n);
	assert_non_null(b);
	memcpy(&hv, b + 12, 4);
	memcpy(&rep, b + 16, 2);
	assert_int_equal(hv, 0x51ccc178); /* same fields, same key */
	assert_int_equal(rep, 3); /* UDPv4 */
	cmd[4] = 1; /* reserved must be zero */
	assert_int_equal(ctrl(r, 4, 2, cmd, 53), 1);
	assert_int_equal(ctrl(r, 4, 1, cmd, 53), 1); /* RSS_CONFIG: no RSS */
	raw_close(r);
}

/* ----------------------------------------------------- control queue -- */

static void test_ctrl_commands(void **state)
{
	struct raw *r = raw_open("queues=4", GV_BIT(GV_NET_F_CTRL_RX) | GV_BIT(GV_NET_F_CTRL_VLAN) |
				 GV_BIT(GV_NET_F_CTRL_MAC_ADDR) | GV_BIT(GV_NET_F_GUEST_ANNOUNCE) |
				 GV_BIT(GV_NET_F_MQ), MAXQ);
	uint8_t d[1024];
	uint32_t n32;
	uint16_t v;
	struct gv_loop_stats s0, s;

	(void)state;
	s0 = st(r);
	/* RX class */
	d[0] = 1;
	assert_int_equal(ctrl(r, 0, 0, d, 1), 0);
	assert_true(st(r).promisc);
	assert_int_equal(ctrl(r, 0, 1, d, 1), 0);
	assert_true(st(r).allmulti);
	d[0] = 2;
	assert_int_equal(ctrl(r, 0, 0, d, 1), 1);
	assert_int_equal(ctrl(r, 0, 0, d, 0), 1);
	assert_int_equal(ctrl(r, 0, 0, d, 2), 1);
	assert_int_equal(ctrl(r, 0, 2, d, 1), 1); /* ALLUNI: no CTRL_RX_EXTRA */
	/* MAC tables: 2 unicast, 1 multicast */
	n32 = 2;
	memcpy(d, &n32, 4);
	memcpy(d + 4, "\x02\0\0\0\0\x01\x02\0\0\0\0\x02", 12);
	n32 = 1;
	memcpy(d + 16, &n32, 4);
	memcpy(d + 20, "\x01\0\x5e\0\0\x01", 6);
	assert_int_equal(ctrl(r, 1, 0, d, 26), 0);
	s = st(r);
	assert_int_equal(s.n_uc, 2);
	assert_int_equal(s.n_mc, 1);
	assert_memory_equal(s.uc[1], "\x02\0\0\0\0\x02", 6);
	assert_int_equal(ctrl(r, 1, 0, d, 25), 1); /* cut short */
	assert_int_equal(ctrl(r, 1, 0, d, 27), 1); /* trailing byte */
	assert_int_equal(ctrl(r, 1, 0, d, 3), 1);
	d[4] = 0x03; /* a multicast address in the unicast table */
	assert_int_equal(ctrl(r, 1, 0, d, 26), 1);
	d[4] = 0x02;
	d[20] = 0x00; /* a unicast address in the multicast table */
	assert_int_equal(ctrl(r, 1, 0, d, 26), 1);
	n32 = 0xffffffff;
	memcpy(d, &n32, 4);
	assert_int_equal(ctrl(r, 1, 0, d, 26), 1);
	s = st(r);
	assert_int_equal(s.n_uc, 2); /* unchanged */
	/* MAC_ADDR_SET changes the config mac */
	assert_int_equal(ctrl(r, 1, 1, "\x02\x42\0\0\0\x07", 6), 0);
	{
		uint8_t mac[6];

		assert_int_equal(r->ops->read_config(r->hw, GV_NET_CFG_MAC, mac, 6), 0);
		assert_memory_equal(mac, "\x02\x42\0\0\0\x07", 6);
	}
	assert_int_equal(ctrl(r, 1, 1, "\x01\x42\0\0\0\x07", 6), 1);
	assert_int_equal(ctrl(r, 1, 1, "\x02\x42\0\0\0", 5), 1);
	/* VLAN */
	v = 4095;
	assert_int_equal(ctrl(r, 2, 0, &v, 2), 0);
	assert_true(st(r).vlan[63] & (1ull << 63));
	assert_int_equal(ctrl(r, 2, 1, &v, 2), 0);
	assert_false(st(r).vlan[63] & (1ull << 63));
	v = 4096;
	assert_int_equal(ctrl(r, 2, 0, &v, 2), 1);
	assert_int_equal(ctrl(r, 2, 0, &v, 1), 1);
	assert_int_equal(ctrl(r, 2, 2, &v, 2), 1);
	/* ANNOUNCE */
	assert_int_equal(rte_pmd_gvirtio_loop_announce(r->port), 0);
	assert_int_equal(r->ops->read_config(r->hw, GV_NET_CFG_STATUS, &v, 2), 0);
	assert_int_equal(v, GV_NET_S_LINK_UP | GV_NET_S_ANNOUNCE);
	assert_int_equal(ctrl(r, 3, 0, d, 1), 1);
	assert_int_equal(ctrl(r, 3, 0, NULL, 0), 0);
	assert_int_equal(r->ops->read_config(r->hw, GV_NET_CFG_STATUS, &v, 2), 0);
	assert_int_equal(v, GV_NET_S_LINK_UP);
	/* MQ */
	v = 3;
	assert_int_equal(ctrl(r, 4, 0, &v, 2), 0);
	assert_int_equal(st(r).vq_pairs, 3);
	v = 0;
	assert_int_equal(ctrl(r, 4, 0, &v, 2), 1);
	v = 5;
	assert_int_equal(ctrl(r, 4, 0, &v, 2), 1);
	assert_int_equal(ctrl(r, 4, 3, &v, 2), 1);
	/* no such class, a command with no data at all */
	assert_int_equal(ctrl(r, 9, 0, NULL, 0), 1);
	assert_int_equal(ctrl(r, 4, 0, NULL, 0), 1);
	/* a chain without room for the ack: used, nothing written */
	{
		struct gv_seg sg = { (uint64_t)(uintptr_t)r->cbuf, 3 };
		uint32_t ulen = 99;
		void *ck;

		memcpy(r->cbuf, "\0\0\1", 3);
		assert_int_equal(gv_vq_add(r->cvq.vq, &sg, 1, 0, r->cbuf, false), 0);
		kick(r, &r->cvq);
		assert_int_equal(gv_vq_get_used(r->cvq.vq, &ck, &ulen, 1), 1);
		assert_int_equal(ulen, 0);
	}
	s = st(r);
	assert_int_equal(s.ctrl_ok - s0.ctrl_ok, 8);
	assert_int_equal(s.ctrl_err - s0.ctrl_err, 22);
	assert_int_equal(ctrl(r, 0, 0, "\0", 1), 0); /* still answering */
	raw_close(r);
}

/* --------------------------------------------------- transmit headers -- */

static void test_bad_tx(void **state)
{
	struct raw *r = raw_open("", GV_BIT(GV_NET_F_CSUM) | GV_BIT(GV_NET_F_HOST_TSO4), 1);
	struct gv_net_hdr h;
	uint8_t f[256];
	uint32_t len = ip4_frame(f, bcast, 6, 1, 2, 3, 4, 100), n;

	(void)state;
	rx_post(r, 0, 0, 16, BUFSZ);
	memset(&h, 0, sizeof(h));
	h.flags = GV_NET_HDR_F_NEEDS_CSUM;
	h.csum_start = (uint16_t)len; /* beyond the frame */
	tx_send(r, 0, &h, f, len);
	h.csum_start = 34;
	h.csum_offset = (uint16_t)(len - 34 - 1); /* field crosses the end */
	tx_send(r, 0, &h, f, len);
	memset(&h, 0, sizeof(h));
	h.gso_type = GV_NET_HDR_GSO_TCPV4; /* gso_size 0 */
	tx_send(r, 0, &h, f, len);
	h.gso_size = 10;
	h.gso_type = GV_NET_HDR_GSO_TCPV6; /* not negotiated */
	tx_send(r, 0, &h, f, len);
	h.gso_type = GV_NET_HDR_GSO_UDP;
	tx_send(r, 0, &h, f, len);
	h.gso_type = GV_NET_HDR_GSO_TCPV4 | GV_NET_HDR_GSO_ECN;
	tx_send(r, 0, &h, f, len);
	h.gso_type = GV_NET_HDR_GSO_TCPV4;
	f[23] = 17; /* not TCP */
	tx_send(r, 0, &h, f, len);
	f[23] = 6;
	assert_int_equal(st(r).drop_bad_hdr, 7);
	assert_null(rx_get(r, 0, &n));
	/* a frame shorter than the header */
	{
		uint8_t b[8] = { 0 };
		struct gv_seg s = { (uint64_t)(uintptr_t)b, 8 };
		void *ck;

		assert_int_equal(gv_vq_add(r->tx[0].vq, &s, 1, 0, b, false), 0);
		kick(r, &r->tx[0]);
		assert_int_equal(gv_vq_get_used(r->tx[0].vq, &ck, NULL, 1), 1);
	}
	assert_int_equal(st(r).drop_bad_hdr, 8);
	/* and a good one still goes through: 100 bytes in 10-byte segments */
	tx_send(r, 0, &h, f, len);
	for (int k = 0; k < 10; k++)
		assert_non_null(rx_get(r, 0, &n));
	assert_null(rx_get(r, 0, &n));
	assert_int_equal(st(r).tx_gso, 1);
	/* A chain the device cannot translate (address 0): the queue stops. */
	{
		struct gv_seg s = { 0, 64 };

		assert_int_equal(gv_vq_add(r->tx[0].vq, &s, 1, 0, f, false), 0);
		kick(r, &r->tx[0]);
		assert_int_equal(st(r).bad_chains, 1);
		kick(r, &r->tx[0]); /* ignored */
	}
	raw_close(r);
}

/* ---------------------------------------------------- mergeable, order -- */

static void test_mrg_spread(void **state)
{
	struct raw *r = raw_open("in_order=1", GV_BIT(GV_NET_F_MRG_RXBUF) | GV_BIT(GV_F_IN_ORDER), 1);
	uint8_t f[1200], got[1300];
	uint32_t len = ip4_frame(f, bcast, 17, 1, 2, 3, 4, 1000), n, off = 0;
	uint16_t nb;
	uint8_t *b;

	(void)state;
	assert_true(r->f & GV_BIT(GV_F_IN_ORDER));
	/* Two 256-byte buffers: not enough for 12 + 1042 bytes. */
	rx_post(r, 0, 0, 2, 256);
	tx_send(r, 0, NULL, f, len);
	assert_int_equal(st(r).drop_no_buffer, 1);
	assert_null(rx_get(r, 0, &n));
	/* Three more: the two held ones are used first, in order. */
	rx_post(r, 0, 2, 3, 256);
	tx_send(r, 0, NULL, f, len);
	for (int i = 0; i < 5; i++) {
		b = rx_get(r, 0, &n);
		assert_ptr_equal(b, r->buf[0][i]);
		assert_int_equal(n, i < 4 ? 256 : 12 + len - 4 * 256);
		memcpy(got + off, b, n);
		off += n;
	}
	memcpy(&nb, got + 10, 2);
	assert_int_equal(nb, 5);
	assert_memory_equal(got + 12, f, len);
	/* IN_ORDER transmit: several chains, one batch. */
	for (int i = 0; i < 3; i++) {
		static uint8_t hb[3][12 + 64];
		struct gv_seg s = { (uint64_t)(uintptr_t)hb[i], sizeof(hb[i]) };

		memset(hb[i], 0, sizeof(hb[i]));
		memcpy(hb[i] + 12, bcast, 6);
		assert_int_equal(gv_vq_add(r->tx[0].vq, &s, 1, 0, (void *)(uintptr_t)(i + 1), false),
				 0);
	}
	rx_post(r, 0, 5, 3, BUFSZ);
	kick(r, &r->tx[0]);
	{
		void *ck[8];

		assert_int_equal(gv_vq_reclaim_in_order(r->tx[0].vq, ck, 8), 3);
		assert_ptr_equal(ck[2], (void *)3);
	}
	for (int i = 0; i < 3; i++)
		assert_non_null(rx_get(r, 0, &n));
	raw_close(r);
}

/* ---------------------------------------------------------------- main -- */

int main(void)
{
	char prefix[64];
	char *argv[] = { "test_loop_dev", "--no-huge", "-m", "128", "--no-pci", "--no-telemetry",
			 prefix, "-l", "0" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toeplitz),
		cmocka_unit_test(test_rss),
		cmocka_unit_test(test_hash_report),
		cmocka_unit_test(test_ctrl_commands),
		cmocka_unit_test(test_bad_tx),
		cmocka_unit_test(test_mrg_spread),
	};
	int fails = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=gvloopdev_%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	packed = false;
	fails += _cmocka_run_group_tests("loop_dev[split]", tests, sizeof(tests) / sizeof(tests[0]),
					 NULL, NULL);
	packed = true;
	fails += _cmocka_run_group_tests("loop_dev[packed]", tests, sizeof(tests) / sizeof(tests[0]),
					 NULL, NULL);
	return fails ? 1 : 0;
}
