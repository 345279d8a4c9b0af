/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pmd.c - libFuzzer target: the PMD's RX and TX paths, offloads,
 * control queue, link and RSS code (drivers/net/virtio, compiled in with
 * the fuzzer's coverage and ASan+UBSan) against a hostile device
 * (fuzz_pmd_dev.c) in one process. EAL is initialised once (--no-huge,
 * --no-pci, --no-shconf); each input creates a port (vdev net_gvfuzz0),
 * runs a script, and removes the port, after which every mbuf must be
 * back in its pool (abort otherwise: a leak).
 *
 * Input: a header, then a script.
 *   byte 0  ring/port: 1 packed, 2 mrg_rxbuf, 4 in_order, 8 indirect,
 *           16 event_idx, 32 small RX mbufs (the full RX path), 64 two
 *           queue pairs, 128 legacy (no VERSION_1, rings of exactly queue_max)
 *   byte 1  bits 0-1 datapath= (none, simple, inorder, full); RX
 *           offloads: 4 checksum, 8 LRO, 16 VLAN strip, 32 RSS hash,
 *           64 scatter; 128 mq_mode RSS
 *   byte 2  TX offloads: 1 multi-seg, 2 TCP/UDP checksum, 4 TSO, 8 VLAN
 *           insert, 16 IPv4 checksum; offered: 32 MQ, 64 control queue
 *           (+RX modes, MAC, VLAN, announce), 128 RSS + hash report
 *   byte 3  offered: 1 STATUS, 2 MTU, 4 SPEED_DUPLEX, 8 MAC, 16
 *           ORDER_PLATFORM, 32 CSUM + GUEST_CSUM, 64 TSO both ways;
 *           128 intr_conf.lsc
 *   u16 nb_desc, u16 queue_max, u16 mtu (0: default)
 *   byte    control queue answers: < 128 the same for every command (% 8:
 *           0-3 OK, 4 ERR, 5 none, 6 a hostile used entry, 7 any ack and
 *           length), else one byte from the script per command
 *   32 bytes of config space (virtio_net_config: mac, status,
 *           max_virtqueue_pairs, mtu, speed, duplex, rss limits)
 *   then opcodes (g_ops below) with their arguments, at most FZ_MAX_OPS.
 * Ports get the vectorized= default (AUTO), or vectorized=1/0 with
 * FZ_VECTORIZED=1/0 or fz_pmd_vec_mode (test_pmd_hostile); the
 * rx_hdr_line= default, or FZ_RX_HDR=shared|own or fz_pmd_rx_hdr.
 * Invariants: every mbuf the PMD hands up is a sane mbuf of the RX pool
 * (rte_mbuf_check, segment bounds, lengths that add up, the port id);
 * the port's MAC is a unicast address after configure and after the
 * script, whatever the config space holds; no mbuf is lost or freed
 * twice (pool counts after the port is gone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_power_intrinsics.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "fuzz_pmd.h"
#include "gv_ctrl.h"
#include "gv_ring_layout.h"

#define FZ_MAX_OPS 256
#define FZ_PORT_NAME "net_gvfuzz0"

static struct rte_mempool *g_rx_big, *g_rx_small, *g_tx;
static bool g_verbose;
enum gv_vec_mode fz_pmd_vec_mode;
enum gv_rx_hdr fz_pmd_rx_hdr;
unsigned int fz_pmd_vec_runs, fz_pmd_vec_broken, fz_pmd_vec_packed_runs, fz_pmd_started;
unsigned int fz_pmd_rx_pkts;

/* What the next probe builds (set from the input's header). */
static struct {
	bool packed, mrg, in_order, legacy;
	enum gv_force_path force;
	uint16_t pairs;
} g_port;

/* ------------------------------------------------------------ the vdev -- */

static int fz_probe(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_vdev_allocate(vdev, sizeof(struct gv_hw));
	struct gv_hw *hw;
	uint16_t maxq;

	if (!dev)
		return -ENOMEM;
	hw = dev->data->dev_private;
	gv_set_transport(hw, GV_TP_TEST, g_port.legacy ? &fzd_ops_legacy : &fzd_ops);
	hw->tp = &g_fzd;
	snprintf(hw->name, sizeof(hw->name), "%s", FZ_PORT_NAME);
	/* As the PCI transport does: max_virtqueue_pairs from the config. */
	memcpy(&maxq, g_fzd.cfg + GV_NET_CFG_MAX_PAIRS, 2);
	maxq = (g_fzd.offered & GV_BIT(GV_NET_F_MQ)) ? RTE_MIN(RTE_MAX(maxq, 1), GV_MAX_QUEUE_PAIRS) : 1;
	hw->req_queue_pairs = hw->max_queue_pairs = maxq;
	/* As legacy PCI: a fixed-size device's rings default to its size. */
	hw->queue_size = g_port.legacy ? g_fzd.qmax : GV_DEFAULT_QUEUE_SIZE;
	hw->want_packed = g_port.packed;
	hw->want_mrg = g_port.mrg;
	hw->want_in_order = g_port.in_order;
	hw->force_path = g_port.force;
	hw->vec_mode = fz_pmd_vec_mode;
	hw->rx_hdr = fz_pmd_rx_hdr;
	hw->use_va = true;
	/* As the PCI transport does: the config's MAC if it is a unicast one. */
	memcpy(hw->mac.addr_bytes, g_fzd.cfg + GV_NET_CFG_MAC, 6);
	if (!rte_is_valid_assigned_ether_addr(&hw->mac))
		rte_eth_random_addr(hw->mac.addr_bytes);
	if (gv_ethdev_init(dev, hw)) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	rte_eth_dev_probing_finish(dev);
	return 0;
}

static int fz_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	return dev ? rte_eth_dev_close(dev->data->port_id) : 0;
}

static struct rte_vdev_driver fz_driver = { .probe = fz_probe, .remove = fz_remove };
RTE_PMD_REGISTER_VDEV(net_gvfuzz, fz_driver);

#ifdef FZ_UBSAN_SUPP
/* UB inside DPDK's inline headers is theirs (ubsan.supp says which). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "suppressions=" FZ_UBSAN_SUPP;
}
#endif

/*
 * An environment setting that is one of two words: -1 unset or empty, 0
 * for `a`, 1 for `b`; anything else stops the run with a message.
 */
static int env_choice(const char *name, const char *a, const char *b)
{
	const char *v = getenv(name);

	if (v == NULL || *v == '\0')
		return -1;
	if (strcmp(v, a) == 0)
		return 0;
	if (strcmp(v, b) == 0)
		return 1;
	fprintf(stderr, "fuzz_pmd: %s=%s: expected %s or %s\n", name, v, a, b);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int c;

	char *eal[] = { "fuzz_pmd", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=*:emerg", NULL };

	(void)argc;
	(void)argv;
	g_verbose = getenv("FZ_VERBOSE") && *getenv("FZ_VERBOSE");
	c = env_choice("FZ_VECTORIZED", "0", "1");
	if (c >= 0)
		fz_pmd_vec_mode = c ? GV_VEC_ON : GV_VEC_OFF;
	c = env_choice("FZ_RX_HDR", "shared", "own");
	if (c >= 0)
		fz_pmd_rx_hdr = c ? GV_RX_HDR_OWN : GV_RX_HDR_SHARED;
	if (g_verbose)
		eal[9] = "--log-level=*:debug";
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "fuzz_pmd: EAL init failed\n");
		abort();
	}
	g_rx_big = rte_pktmbuf_pool_create("fz_rx_big", FZ_NB_MBUF, 0, FZ_PRIV,
					   RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	/* 192 bytes of room: a 1500-byte MTU needs chains of 8 (full path). */
	g_rx_small = rte_pktmbuf_pool_create("fz_rx_small", FZ_NB_MBUF, 0, FZ_PRIV,
					     RTE_PKTMBUF_HEADROOM + 192, 0);
	g_tx = rte_pktmbuf_pool_create("fz_tx", FZ_NB_MBUF, 0, FZ_PRIV, RTE_MBUF_DEFAULT_BUF_SIZE,
				       0);
	if (!g_rx_big || !g_rx_small || !g_tx)
		abort();
	fzd_init();
	fzd_add_pool(g_rx_big);
	fzd_add_pool(g_rx_small);
	fzd_add_pool(g_tx);
	return 0;
}

/* ---------------------------------------------------------- the script -- */

struct run {
	struct fz *in;
	uint16_t port;
	uint16_t nq; /* queue pairs in use */
	struct rte_mempool *rxmp;
	/*
	 * RX used entries longer than the chain was given: 1 staged, 2
	 * published. Unless the ring was written raw or a push lied about
	 * id/ndesc (the driver may then never reach the entry), such a queue
	 * must end broken with a counted reason (check_refused).
	 */
	uint8_t bad[GV_MAX_QUEUE_PAIRS];
	/*
	 * Per virtqueue: raw ring writes or a push with a made-up id/ndesc
	 * since the start. The driver may then complete a chain the device
	 * still holds and reuse its buffer, so what the device reads there
	 * later is no longer the driver's (no TX header check either).
	 */
	bool dirty[FZD_MAX_VQ];
};

static void forget_expectations(struct run *r)
{
	memset(r->bad, 0, sizeof(r->bad));
	memset(r->dirty, 0, sizeof(r->dirty));
}

/* An RX queue's index (vq 2q), or -1 for TX and control queues. */
static int rx_index(const struct run *r, const struct fzd_vq *v)
{
	uint16_t idx = v->q->vq_idx;

	return idx % 2 == 0 && idx < 2 * r->nq ? idx / 2 : -1;
}

static void publish(struct run *r, struct fzd_vq *v)
{
	int q = rx_index(r, v);

	gv_vqd_publish(v->d);
	if (q >= 0 && r->bad[q] == 1)
		r->bad[q] = 2;
}

/* 20 header bytes from the input (flags, gso, csum, num_buffers, hash). */
static void read_hdr(struct fz *in, uint8_t hdr[20])
{
	fz_bytes(in, hdr, 20);
}

static struct fzd_vq *pick_vq(struct run *r, bool rx)
{
	uint16_t q = fz_u8(r->in) % r->nq;

	return fzd_vq((uint16_t)(2 * q + (rx ? 0 : 1)));
}

static void op_rx_burst(struct run *r)
{
	struct rte_mbuf *pkts[GV_BURST_MAX * 2];
	uint16_t q = fz_u8(r->in) % r->nq, n = fz_u8(r->in) % (RTE_DIM(pkts) + 1);
	uint16_t got;

	struct rte_power_monitor_cond pmc;
	int sleep = 0;

	if (!rte_eth_devices[r->port].data->dev_started)
		return;
	/*
	 * The power monitor's condition, read now: "sleep" promises that the
	 * device wrote nothing new, so the burst right after finds nothing.
	 */
	if (rte_eth_get_monitor_addr(r->port, q, &pmc) == 0) {
		FZ_CHECK(pmc.size == 2, "monitor size %u", pmc.size);
		sleep = pmc.fn(*(volatile uint16_t *)pmc.addr, pmc.opaque) == 0;
	}
	got = rte_eth_rx_burst(r->port, q, pkts, n);

	FZ_CHECK(got <= n, "rx_burst returned %u of %u", got, n);
	fz_pmd_rx_pkts += got;
	FZ_CHECK(!sleep || got == 0, "monitor said sleep, rx_burst returned %u", got);
	for (uint16_t i = 0; i < got; i++) {
		fz_check_rx(pkts[i], r->port, r->rxmp);
		rte_pktmbuf_free(pkts[i]);
	}
}

static void op_tx_burst(struct run *r)
{
	struct rte_mbuf *pkts[16];
	uint16_t q = fz_u8(r->in) % r->nq, n = fz_u8(r->in) % (RTE_DIM(pkts) + 1), k = 0;
	uint16_t ok, sent;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = fz_make_tx(r->in, g_tx);

		if (m)
			pkts[k++] = m;
	}
	if (!rte_eth_devices[r->port].data->dev_started) {
		ok = sent = 0;
	} else {
		ok = rte_eth_tx_prepare(r->port, q, pkts, k);
		sent = rte_eth_tx_burst(r->port, q, pkts, ok);
	}
	FZ_CHECK(sent <= ok && ok <= k, "tx sent %u prepared %u of %u", sent, ok, k);
	for (uint16_t i = sent; i < k; i++)
		rte_pktmbuf_free(pkts[i]);
}

static void op_take(struct run *r)
{
	bool rx = fz_u8(r->in) & 1;
	struct fzd_vq *v = pick_vq(r, rx);
	uint8_t n = fz_u8(r->in) % (FZD_HELD + 1);

	if (v)
		fzd_take(v, n);
}

/* Write header + frame into held chain i (as the input says). */
static uint32_t fill(struct run *r, struct fzd_vq *v, uint32_t i, const uint8_t hdr[20])
{
	static uint8_t buf[20 + 16384];
	struct gv_chain *c = &v->held[i];
	uint16_t hs = fzd_hdr_size();
	uint32_t len = fz_make_frame(r->in, buf + hs, sizeof(buf) - 20);

	memcpy(buf, hdr, hs);
	return gv_vqd_write(v->d, c, 0, buf, hs + len);
}

static void op_fill_push(struct run *r)
{
	bool rx = fz_u8(r->in) & 1;
	struct fzd_vq *v = pick_vq(r, rx);
	uint8_t how = fz_u8(r->in);
	uint8_t hdr[20];
	uint32_t i, len = 0;
	struct gv_chain *c;
	int q;

	if (!v)
		return;
	fzd_take(v, 1);
	if (!v->n_held)
		return;
	i = fz_u8(r->in) % v->n_held;
	c = &v->held[i];
	read_hdr(r->in, hdr);
	if (how & 1)
		len = fill(r, v, i, hdr);
	switch ((how >> 1) & 3) {
	case 0: /* what was written */
		break;
	case 1: /* all it was given */
		len = c->in_len;
		break;
	case 2: /* more than it was given (must be refused) */
		len = c->in_len + 1 + fz_u8(r->in);
		break;
	default:
		len = fz_u32(r->in);
		break;
	}
	{
		uint16_t id = (how & 8) ? fz_u16(r->in) : c->id;
		uint16_t nd = (how & 16) ? fz_u8(r->in) : c->ndesc;

		gv_vqd_push(v->d, id, nd, len);
		if (g_verbose)
			fprintf(stderr, "fuzz_pmd: push vq %u id %u ndesc %u len %u (chain %u: id %u, "
				"%u writable)%s\n", v->q->vq_idx, id, nd, len, i, c->id, c->in_len,
				(how & 32) ? " unpublished" : "");
	}
	q = rx_index(r, v);
	if (how & (8 | 16))
		r->dirty[v->q->vq_idx] = true;
	else if (q >= 0 && q < GV_MAX_QUEUE_PAIRS && len > c->in_len && !gv_vqd_broken(v->d) &&
		 !r->bad[q])
		r->bad[q] = 1;
	fzd_drop(v, i);
	if (!(how & 32))
		publish(r, v);
}

/* A well-behaved delivery of one frame (mergeable: over several chains). */
static void op_deliver(struct run *r)
{
	static uint8_t frame[20 + 16384];
	struct fzd_vq *v = pick_vq(r, true);
	uint16_t hs = fzd_hdr_size();
	uint8_t hdr[20];
	uint32_t len, off = 0, nb = 0;
	bool mrg = g_fzd.features & GV_BIT(GV_NET_F_MRG_RXBUF);

	read_hdr(r->in, hdr);
	len = hs + fz_make_frame(r->in, frame + hs, sizeof(frame) - 20);
	if (!v)
		return;
	v->n_held = 0; /* chains held by hostile steps are forgotten */
	while (off < len && nb < FZD_HELD) {
		if (fzd_take(v, 1) != 1)
			break;
		off += v->held[nb++].in_len;
		if (!mrg)
			break;
	}
	if (nb == 0)
		return;
	if (mrg && !(hdr[0] & 0x80)) { /* num_buffers right, unless asked */
		hdr[10] = (uint8_t)nb;
		hdr[11] = 0;
	}
	memcpy(frame, hdr, hs);
	off = 0;
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t w = gv_vqd_write(v->d, &v->held[i], 0, frame + off, len - off);

		gv_vqd_push(v->d, v->held[i].id, v->held[i].ndesc, w);
		if (g_verbose)
			fprintf(stderr, "fuzz_pmd: deliver vq %u id %u ndesc %u len %u\n", v->q->vq_idx,
				v->held[i].id, v->held[i].ndesc, w);
		off += w;
	}
	v->n_held = 0;
	publish(r, v);
}

static void op_complete_tx(struct run *r)
{
	static uint8_t sink[65536];
	struct fzd_vq *v = pick_vq(r, false);
	uint8_t how = fz_u8(r->in), n = fz_u8(r->in) % (FZD_HELD + 1);

	if (!v)
		return;
	fzd_take(v, n);
	if (!v->n_held)
		return;
	for (uint32_t i = 0; i < v->n_held; i++) {
		uint32_t got = gv_vqd_read(v->d, &v->held[i], 0, sink, sizeof(sink));
		uint16_t hs = fzd_hdr_size();

		/* The driver's TX header: num_buffers and the hash fields are 0. */
		for (uint16_t b = 10; b < hs && b < got && !r->dirty[v->q->vq_idx]; b++)
			FZ_CHECK(sink[b] == 0, "TX header byte %u is 0x%02x", b, sink[b]);
	}
	if (how & 1) { /* IN_ORDER: one entry for the batch */
		uint32_t ndesc = 0;

		for (uint32_t i = 0; i < v->n_held; i++)
			ndesc += v->held[i].ndesc;
		gv_vqd_push_in_order_batch(v->d, v->held[v->n_held - 1].id, 0, v->n_held, ndesc);
	} else {
		for (uint32_t i = 0; i < v->n_held; i++)
			gv_vqd_push(v->d, v->held[i].id, v->held[i].ndesc,
				    (how & 2) ? fz_u32(r->in) : 0);
	}
	v->n_held = 0;
	gv_vqd_publish(v->d);
}

/* Raw writes into the ring: any used entry, index, packed descriptor. */
static void op_raw(struct run *r)
{
	bool rx = fz_u8(r->in) & 1;
	struct fzd_vq *v = pick_vq(r, rx);
	uint8_t how = fz_u8(r->in);
	struct gv_ring_addrs a;
	uint32_t num, id, len;

	if (!v)
		return;
	r->dirty[v->q->vq_idx] = true;
	gv_vq_addrs(v->q->vq, &a);
	num = gv_vq_num(v->q->vq);
	id = (how & 1) && v->n_held ? v->held[fz_u8(r->in) % v->n_held].id : fz_u32(r->in);
	len = fz_u32(r->in);
	if (gv_vq_layout(v->q->vq) == GV_LAYOUT_SPLIT) {
		struct gv_split_used *u = (struct gv_split_used *)(uintptr_t)a.device;
		uint16_t idx = __atomic_load_n(&u->idx, __ATOMIC_RELAXED);
		uint16_t slot = (uint16_t)(idx + fz_u8(r->in)) % num;

		u->ring[slot].id = id;
		u->ring[slot].len = len;
		__atomic_store_n(&u->idx, (uint16_t)(idx + (int8_t)fz_u8(r->in)), __ATOMIC_RELEASE);
	} else {
		struct gv_packed_desc *d = (struct gv_packed_desc *)(uintptr_t)a.desc;
		uint16_t slot = fz_u16(r->in) % num;
		uint16_t f = __atomic_load_n(&d[slot].flags, __ATOMIC_RELAXED);

		if (how & 2) /* looks used for the wrap the driver is in */
			f = (f & GV_DESC_F_AVAIL) ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
		else
			f = fz_u16(r->in);
		d[slot].id = (uint16_t)id;
		d[slot].len = len;
		__atomic_store_n(&d[slot].flags, f, __ATOMIC_RELEASE);
	}
}

static void op_config(struct run *r)
{
	uint8_t off = fz_u8(r->in) % FZD_CFG_LEN, how = fz_u8(r->in);
	uint8_t b[FZD_CFG_LEN];
	uint32_t n = RTE_MIN((uint32_t)(how & 0x7f), (uint32_t)FZD_CFG_LEN - off);

	fz_bytes(r->in, b, n);
	memcpy(g_fzd.cfg + off, b, n);
	if (!(how & 0x80)) /* a config change interrupt */
		gv_config_changed(&rte_eth_devices[r->port]);
}

static void op_ctrl(struct run *r)
{
	uint8_t what = fz_u8(r->in);
	struct rte_ether_addr mac;

	fz_bytes(r->in, mac.addr_bytes, 6);
	switch (what % 12) {
	case 0:
		rte_eth_promiscuous_enable(r->port);
		break;
	case 1:
		rte_eth_promiscuous_disable(r->port);
		break;
	case 2:
		rte_eth_allmulticast_enable(r->port);
		break;
	case 3:
		rte_eth_allmulticast_disable(r->port);
		break;
	case 4:
		rte_eth_dev_default_mac_addr_set(r->port, &mac);
		break;
	case 5:
		rte_eth_dev_mac_addr_add(r->port, &mac, 0);
		break;
	case 6:
		rte_eth_dev_mac_addr_remove(r->port, &mac);
		break;
	case 7: {
		struct rte_ether_addr mc[3] = { mac, mac, mac };

		mc[0].addr_bytes[0] |= 1;
		rte_eth_dev_set_mc_addr_list(r->port, mc, fz_u8(r->in) % 4);
		break;
	}
	case 8:
		rte_eth_dev_vlan_filter(r->port, fz_u16(r->in) & 0xfff, what >> 7);
		break;
	case 9: {
		uint8_t key[64];
		struct rte_eth_rss_conf c = { .rss_key = key, .rss_key_len = fz_u8(r->in) % 64,
					      .rss_hf = fz_u64(r->in) };

		fz_bytes(r->in, key, sizeof(key));
		if (what & 0x80)
			c.rss_key = NULL;
		rte_eth_dev_rss_hash_update(r->port, &c);
		break;
	}
	case 10: {
		struct rte_eth_rss_reta_entry64 reta[GV_RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
		struct rte_eth_dev_info info;
		uint16_t size;

		memset(reta, 0, sizeof(reta));
		if (rte_eth_dev_info_get(r->port, &info))
			break;
		size = (what & 0x80) ? fz_u16(r->in) % (GV_RSS_RETA_MAX + 1) : info.reta_size;
		for (unsigned int g = 0; g < RTE_DIM(reta); g++) {
			reta[g].mask = fz_u64(r->in);
			for (unsigned int k = 0; k < RTE_ETH_RETA_GROUP_SIZE; k++)
				reta[g].reta[k] = (uint16_t)(k % (r->nq + (what >> 6 & 1)));
		}
		if (size)
			rte_eth_dev_rss_reta_update(r->port, reta, size);
		break;
	}
	default: {
		struct rte_eth_link l;

		rte_eth_link_get_nowait(r->port, &l);
		break;
	}
	}
}

static void op_stats(struct run *r)
{
	struct rte_eth_stats st;
	struct rte_eth_xstat xs[512];
	struct rte_eth_xstat_name names[512];
	int n;

	rte_eth_stats_get(r->port, &st);
	n = rte_eth_xstats_get(r->port, xs, RTE_DIM(xs));
	FZ_CHECK(n <= (int)RTE_DIM(xs), "%d xstats", n);
	n = rte_eth_xstats_get_names(r->port, names, RTE_DIM(names));
	FZ_CHECK(n <= (int)RTE_DIM(names), "%d xstat names", n);
	if (fz_u8(r->in) & 1)
		rte_eth_stats_reset(r->port);
}

static void op_publish(struct run *r)
{
	struct fzd_vq *v = pick_vq(r, fz_u8(r->in) & 1);

	if (v)
		publish(r, v);
}

static void op_stop(struct run *r)
{
	rte_eth_dev_stop(r->port);
	forget_expectations(r);
}

static void op_start(struct run *r)
{
	bool was = rte_eth_devices[r->port].data->dev_started;

	/* Only a real start gives fresh rings (a started port ignores it). */
	if (rte_eth_dev_start(r->port) == 0 && !was)
		forget_expectations(r);
}

/*
 * "Anything that would write outside what the driver posted is refused
 * and counted": an RX queue given a used length beyond its chain ends
 * broken, with the reason in the port's xstats, once the app has polled.
 */
static void check_refused(struct run *r)
{
	static const char *const why[] = { "bad_id", "id_not_inflight", "bad_len",
					   "bad_flags", "bad_used_idx", "bad_order" };

	if (!rte_eth_devices[r->port].data->dev_started)
		return;
	for (uint16_t q = 0; q < r->nq; q++) {
		struct gv_rxq *rxq = rte_eth_devices[r->port].data->rx_queues[q];
		struct rte_mbuf *pkts[GV_BURST_MAX];
		uint64_t counted = 0;
		uint16_t got;

		if (r->bad[q] != 2 || r->dirty[2 * q])
			continue;
		for (unsigned int k = 0; k < 64; k++) {
			got = rte_eth_rx_burst(r->port, q, pkts, RTE_DIM(pkts));
			for (uint16_t i = 0; i < got; i++) {
				fz_check_rx(pkts[i], r->port, r->rxmp);
				rte_pktmbuf_free(pkts[i]);
			}
			if (!got)
				break;
		}
		FZ_CHECK(gv_vq_broken(rxq->q.vq),
			 "rx queue %u took a used length beyond its buffers", q);
		for (unsigned int k = 0; k < RTE_DIM(why); k++) {
			char name[RTE_ETH_XSTATS_NAME_SIZE];
			uint64_t id, val;

			snprintf(name, sizeof(name), "rx_q%u_%s", q, why[k]);
			if (rte_eth_xstats_get_id_by_name(r->port, name, &id) == 0 &&
			    rte_eth_xstats_get_by_id(r->port, &id, &val, 1) == 1)
				counted += val;
		}
		FZ_CHECK(counted > 0, "rx queue %u broken but no reason counted", q);
		if (g_verbose)
			fprintf(stderr, "fuzz_pmd: rx queue %u refused a long entry (%" PRIu64
				" counted)\n", q, counted);
	}
}

static void op_mtu(struct run *r)
{
	rte_eth_dev_set_mtu(r->port, fz_u16(r->in));
}

typedef void (*fz_op)(struct run *r);
static const fz_op g_ops[] = {
	op_rx_burst, /* 0 */
	op_tx_burst, /* 1 */
	op_take, /* 2 */
	op_fill_push, /* 3 */
	op_deliver, /* 4 */
	op_complete_tx, /* 5 */
	op_raw, /* 6 */
	op_config, /* 7 */
	op_ctrl, /* 8 */
	op_stats, /* 9 */
	op_publish, /* 10 */
	op_stop, /* 11 */
	op_start, /* 12 */
	op_mtu, /* 13 */
	op_rx_burst, /* 14: bursts twice as likely */
	op_deliver, /* 15 */
};

/* ------------------------------------------------------------- one run -- */

/* Which bit of which configuration byte offers which features. */
static const struct {
	uint8_t byte, mask;
	uint64_t features;
} g_offer_bits[] = {
	{ 0, 1, GV_BIT(GV_F_RING_PACKED) },
	{ 0, 2, GV_BIT(GV_NET_F_MRG_RXBUF) },
	{ 0, 4, GV_BIT(GV_F_IN_ORDER) },
	{ 0, 8, GV_BIT(GV_F_RING_INDIRECT_DESC) },
	{ 0, 16, GV_BIT(GV_F_RING_EVENT_IDX) },
	{ 2, 32, GV_BIT(GV_NET_F_MQ) },
	{ 2, 64, GV_BIT(GV_NET_F_CTRL_VQ) | GV_BIT(GV_NET_F_CTRL_RX) | GV_BIT(GV_NET_F_CTRL_VLAN) |
		 GV_BIT(GV_NET_F_CTRL_MAC_ADDR) | GV_BIT(GV_NET_F_GUEST_ANNOUNCE) },
	{ 2, 128, GV_BIT(GV_NET_F_RSS) | GV_BIT(GV_NET_F_HASH_REPORT) },
	{ 3, 1, GV_BIT(GV_NET_F_STATUS) },
	{ 3, 2, GV_BIT(GV_NET_F_MTU) },
	{ 3, 4, GV_BIT(GV_NET_F_SPEED_DUPLEX) },
	{ 3, 8, GV_BIT(GV_NET_F_MAC) },
	{ 3, 16, GV_BIT(GV_F_ORDER_PLATFORM) },
	{ 3, 32, GV_BIT(GV_NET_F_CSUM) | GV_BIT(GV_NET_F_GUEST_CSUM) },
	{ 3, 64, GV_BIT(GV_NET_F_HOST_TSO4) | GV_BIT(GV_NET_F_HOST_TSO6) |
		 GV_BIT(GV_NET_F_GUEST_TSO4) | GV_BIT(GV_NET_F_GUEST_TSO6) },
};

/* The device's offer from configuration bytes b[0..3]: VERSION_1 unless
 * bit 7 of b[0], then the table above. */
static uint64_t offered_from(const uint8_t b[4])
{
	uint64_t f = (b[0] & 128) ? 0 : GV_BIT(GV_F_VERSION_1);

	for (unsigned int i = 0; i < RTE_DIM(g_offer_bits); i++)
		if (b[g_offer_bits[i].byte] & g_offer_bits[i].mask)
			f |= g_offer_bits[i].features;
	return f;
}

static const uint64_t rx_ol_bits[] = { RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM,
				       RTE_ETH_RX_OFFLOAD_TCP_LRO, RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
				       RTE_ETH_RX_OFFLOAD_RSS_HASH, RTE_ETH_RX_OFFLOAD_SCATTER };
static const uint64_t tx_ol_bits[] = { RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
				       RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
				       RTE_ETH_TX_OFFLOAD_TCP_TSO, RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
				       RTE_ETH_TX_OFFLOAD_IPV4_CKSUM };

static void run_script(struct run *r)
{
	for (unsigned int k = 0; k < FZ_MAX_OPS && !fz_empty(r->in); k++) {
		uint8_t op = fz_u8(r->in) % RTE_DIM(g_ops);

		g_ops[op](r);
		if (g_verbose)
			fprintf(stderr, "fuzz_pmd: op %u: rx pool %u free, device holds %u\n", op,
				rte_mempool_avail_count(r->rxmp),
				fzd_vq(0) ? fzd_vq(0)->n_held : 0);
	}
}

/* The port's MAC is a unicast address whatever the config space said. */
static void check_mac(const struct run *r)
{
	struct rte_ether_addr a;

	FZ_CHECK(rte_eth_macaddr_get(r->port, &a) == 0 && rte_is_valid_assigned_ether_addr(&a),
		 "the port's MAC is not a unicast address");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct run r = { .in = &in };
	uint8_t b0 = fz_u8(&in), b1 = fz_u8(&in), b2 = fz_u8(&in), b3 = fz_u8(&in);
	uint16_t nb_desc = fz_u16(&in) % 1025, qmax = fz_u16(&in), mtu = fz_u16(&in);
	uint8_t ctrl_mode = fz_u8(&in);
	bool vec = false;

	memset(&g_fzd.cfg, 0, sizeof(g_fzd.cfg));
	fz_bytes(&in, g_fzd.cfg, FZD_CFG_LEN);
	g_fzd.offered = offered_from((const uint8_t[4]){ b0, b1, b2, b3 });
	g_fzd.qmax = qmax;
	g_fzd.in = &in;
	g_fzd.ctrl_cmds = 0;
	g_fzd.ctrl_mode = ctrl_mode;
	g_port.packed = b0 & 1;
	g_port.mrg = b0 & 2;
	g_port.in_order = b0 & 4;
	g_port.legacy = b0 & 128;
	g_port.force = (enum gv_force_path)(b1 & 3);
	r.nq = (b0 & 64) ? 2 : 1;
	r.rxmp = (b0 & 32) ? g_rx_small : g_rx_big;

	if (rte_vdev_init(FZ_PORT_NAME, NULL) != 0)
		goto out;
	if (rte_eth_dev_get_port_by_name(FZ_PORT_NAME, &r.port) != 0)
		abort();
	memset(&conf, 0, sizeof(conf));
	for (unsigned int i = 0; i < RTE_DIM(rx_ol_bits); i++)
		if (b1 & (4u << i))
			conf.rxmode.offloads |= rx_ol_bits[i];
	for (unsigned int i = 0; i < RTE_DIM(tx_ol_bits); i++)
		if (b2 & (1u << i))
			conf.txmode.offloads |= tx_ol_bits[i];
	if (b1 & 128)
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rxmode.mtu = mtu;
	conf.intr_conf.lsc = (b3 & 128) != 0;
	/* ethdev refuses offloads the port lacks: keep what it offers. */
	if (rte_eth_dev_info_get(r.port, &info) == 0) {
		conf.rxmode.offloads &= info.rx_offload_capa;
		conf.txmode.offloads &= info.tx_offload_capa;
		if (info.max_rx_queues < r.nq)
			r.nq = 1;
	}
	if (rte_eth_dev_configure(r.port, r.nq, r.nq, &conf) != 0)
		goto close;
	check_mac(&r);
	if (nb_desc) /* as an app does: within the port's limits */
		rte_eth_dev_adjust_nb_rx_tx_desc(r.port, &nb_desc, &nb_desc);
	for (uint16_t q = 0; q < r.nq; q++)
		if (rte_eth_rx_queue_setup(r.port, q, nb_desc, 0, NULL, r.rxmp) != 0 ||
		    rte_eth_tx_queue_setup(r.port, q, nb_desc, 0, NULL) != 0)
			goto close;
	if (rte_eth_dev_start(r.port) != 0 && g_verbose)
		fprintf(stderr, "fuzz_pmd: start failed\n");
	fz_pmd_started += rte_eth_devices[r.port].data->dev_started;
	if (rte_eth_devices[r.port].data->dev_started &&
	    gv_port_rx_path(rte_eth_devices[r.port].data->dev_private)->p.vector) {
		vec = true;
		fz_pmd_vec_runs++;
		fz_pmd_vec_packed_runs += g_port.packed;
	}
	run_script(&r);
	if (vec) {
		const struct gv_rxq *rxq = rte_eth_devices[r.port].data->rx_queues[0];

		fz_pmd_vec_broken += rxq && rxq->q.vq && gv_vq_broken(rxq->q.vq);
	}
	check_refused(&r);
	check_mac(&r);
close:
	g_fzd.in = NULL;
	rte_eth_dev_stop(r.port); /* ethdev closes only a stopped port */
	FZ_CHECK(rte_vdev_uninit(FZ_PORT_NAME) == 0, "the port did not close");
out:
	g_fzd.in = NULL;
	if (rte_mempool_avail_count(g_rx_big) != g_rx_big->size ||
	    rte_mempool_avail_count(g_rx_small) != g_rx_small->size ||
	    rte_mempool_avail_count(g_tx) != g_tx->size)
		fprintf(stderr, "pools after close: rx_big %u rx_small %u tx %u of %u\n",
			rte_mempool_avail_count(g_rx_big), rte_mempool_avail_count(g_rx_small),
			rte_mempool_avail_count(g_tx), FZ_NB_MBUF);
	fz_check_pool(g_rx_big);
	fz_check_pool(g_rx_small);
	fz_check_pool(g_tx);
	return 0;
}
