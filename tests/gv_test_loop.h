/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_loop.h - helpers of the tests that run the PMD over the loopback
 * device (test_loop*.c, test_rx_*.c, test_fault_*.c), header only: EAL and
 * mbuf pools, probing and starting a net_gvirtio_loop port, building
 * UDP/IPv4 frames and checking them on arrival, sending and receiving
 * everything, the device's counters, capturing the log.
 */
#ifndef GV_TEST_LOOP_H
#define GV_TEST_LOOP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gv_loop.h"

static struct rte_mempool *mp; /* 2 KB mbufs */
static struct rte_mempool *mp_big; /* 16 KB mbufs */
static unsigned int port_seq;

struct port {
	char name[32];
	uint16_t id;
	uint16_t nq;
};

static inline int port_probe(struct port *p, const char *args)
{
	char buf[256];
	int ret;

	snprintf(p->name, sizeof(p->name), "net_gvirtio_loop%u", port_seq++);
	snprintf(buf, sizeof(buf), "%s%s%s", p->name, *args ? "," : "", args);
	ret = rte_dev_probe(buf);
	if (ret)
		return ret;
	return rte_eth_dev_get_port_by_name(p->name, &p->id);
}

struct port_cfg {
	uint16_t nq;
	uint16_t mtu;
	uint64_t rxo, txo;
	bool promisc;
	bool lsc;
};

static inline void port_start(struct port *p, const struct port_cfg *c)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nq = c->nq ? c->nq : 1, nd;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = c->rxo;
	conf.txmode.offloads = c->txo;
	conf.intr_conf.lsc = c->lsc;
	if (c->rxo & RTE_ETH_RX_OFFLOAD_TCP_LRO)
		conf.rxmode.max_lro_pkt_size = (c->mtu ? c->mtu : RTE_ETHER_MTU) + 18;
	assert_int_equal(rte_eth_dev_configure(p->id, nq, nq, &conf), 0);
	if (c->mtu)
		assert_int_equal(rte_eth_dev_set_mtu(p->id, c->mtu), 0);
	assert_int_equal(rte_eth_dev_info_get(p->id, &info), 0);
	nd = RTE_MIN(256, info.rx_desc_lim.nb_max);
	for (uint16_t q = 0; q < nq; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(p->id, q, nd, SOCKET_ID_ANY, NULL, mp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(p->id, q, nd, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(p->id), 0);
	if (c->promisc)
		assert_int_equal(rte_eth_promiscuous_enable(p->id), 0);
	p->nq = nq;
}

static inline void port_remove(struct port *p)
{
	rte_eth_dev_stop(p->id);
	assert_int_equal(rte_eal_hotplug_remove("vdev", p->name), 0);
}

static inline struct gv_loop_stats stats(const struct port *p)
{
	struct gv_loop_stats s;

	assert_int_equal(rte_pmd_gvirtio_loop_stats(p->id, &s), 0);
	return s;
}

/*
 * An IPv4/UDP frame of `len` bytes (>= 60) to `dst`, optionally tagged,
 * with `seq` and a pattern in the payload and a correct UDP checksum.
 */
static inline struct rte_mbuf *frame(struct rte_mempool *pool, const struct rte_ether_addr *dst,
			      uint32_t len, uint32_t seq, int vid)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint32_t l2 = vid >= 0 ? 18 : 14;
	uint8_t *b;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;

	if (!m)
		fail_msg("mbuf pool empty");
	b = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (!b)
		fail_msg("no room for %u bytes", len);
	for (int i = 0; i < 6; i++) {
		b[i] = dst->addr_bytes[i];
		b[6 + i] = i == 0 ? 0x02 : i == 5 ? 0x01 : 0;
	}
	if (vid >= 0) {
		b[12] = 0x81;
		b[13] = 0;
		b[14] = (uint8_t)(vid >> 8);
		b[15] = (uint8_t)vid;
	}
	b[l2 - 2] = 0x08;
	b[l2 - 1] = 0x00;
	ip = (struct rte_ipv4_hdr *)(b + l2);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - l2));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002 + (seq & 0xff));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1000 + seq));
	udp->dst_port = rte_cpu_to_be_16(2000);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - l2 - 20));
	udp->dgram_cksum = 0;
	for (uint32_t i = l2 + 28; i < len; i++)
		b[i] = (uint8_t)(seq * 7 + i);
	memcpy(b + l2 + 28, &seq, 4);
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return m;
}

/* Copy a whole packet out (rte_pktmbuf_read copies only when segmented). */
static inline void pkt_copy(const struct rte_mbuf *m, uint32_t len, void *buf)
{
	const void *d = rte_pktmbuf_read(m, 0, len, buf);

	if (!d)
		fail_msg("packet shorter than %u bytes", len);
	if (d != buf)
		memcpy(buf, d, len);
}

/*
 * Received packet m is frame() number `seq` to `dst`, byte for byte, of
 * its own length (the caller checks that length).
 */
static inline void check_frame(const struct rte_mbuf *m, const struct rte_ether_addr *dst,
			       uint32_t seq)
{
	static uint8_t want[9100], got[9100];
	const uint32_t len = m->pkt_len;
	struct rte_mbuf *ref;
	uint32_t s;

	assert_true(len >= 60 && len <= sizeof(got));
	pkt_copy(m, len, got);
	memcpy(&s, got + 14 + 28, 4);
	assert_int_equal(s, seq);
	ref = frame(len > 2048 ? mp_big : mp, dst, len, seq, -1);
	memcpy(want, rte_pktmbuf_mtod(ref, void *), len);
	rte_pktmbuf_free(ref);
	assert_memory_equal(got, want, len);
}

/* Send every packet (retrying while the ring is full). */
static inline void send_all(const struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = 0;

	for (int tries = 0; sent < n && tries < 1000; tries++)
		sent += rte_eth_tx_burst(p->id, q, pkts + sent, n - sent);
	assert_int_equal(sent, n);
}

/* Everything waiting on queue q (the device is synchronous). */
static inline uint16_t recv_all(const struct port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t max)
{
	uint16_t n = 0;

	for (int idle = 0; n < max && idle < 4;) {
		uint16_t got = rte_eth_rx_burst(p->id, q, pkts + n, (uint16_t)RTE_MIN(32, max - n));

		n += got;
		idle = got ? 0 : idle + 1;
	}
	return n;
}

static inline void free_all(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(pkts[i]);
}

static inline uint32_t flen(uint32_t i)
{
	return 60 + (i * 37) % 1455; /* 60..1514 */
}

/* One frame through the port and back: 1 if it arrived on queue q. */
static inline int one_way(const struct port *p, const struct rte_ether_addr *dst, int vid, uint16_t txq,
		   uint16_t rxq)
{
	struct rte_mbuf *m = frame(mp, dst, 100, 1, vid), *r[4];
	uint16_t n;

	send_all(p, txq, &m, 1);
	n = recv_all(p, rxq, r, 4);
	free_all(r, n);
	return n;
}

/* EAL in-process (--no-huge, no PCI) and the two mbuf pools. */
static inline int gvl_eal_init(const char *prog)
{
	static char prefix[64];
	char *argv[] = { (char *)(uintptr_t)prog, "--no-huge", "-m", "256", "--no-pci",
			 "--no-telemetry", "--log-level=pmd.net.gvirtio:info", prefix, "-l", "0" };

	snprintf(prefix, sizeof(prefix), "--file-prefix=gvloop_%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	mp = rte_pktmbuf_pool_create("gvloop_mp", 4095, 128, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	mp_big = rte_pktmbuf_pool_create("gvloop_big", 255, 16, 0, 16384 + RTE_PKTMBUF_HEADROOM,
					 SOCKET_ID_ANY);
	if (!mp || !mp_big) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/*
 * The log into memory (log_capture_open, before the tests): log_start()
 * marks where a check begins, log_has() looks for text after the mark.
 */
static FILE *log_f;
static char *log_buf;
static size_t log_len, log_mark;

static inline int log_capture_open(void)
{
	log_f = open_memstream(&log_buf, &log_len);
	return log_f && rte_openlog_stream(log_f) == 0 ? 0 : -1;
}

static inline void log_capture_close(void)
{
	rte_openlog_stream(NULL);
	fclose(log_f);
	free(log_buf);
}

static inline void log_start(void)
{
	fflush(log_f);
	log_mark = log_len;
}

/* The log since log_start() holds `what`. */
static inline bool log_has(const char *what)
{
	fflush(log_f);
	if (log_len <= log_mark)
		return false;
	return memmem(log_buf + log_mark, log_len - log_mark, what, strlen(what)) != NULL;
}

#endif /* GV_TEST_LOOP_H */
