/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench/gv_rr.c - round-trip latency of one ethdev port whose peer echoes
 * every frame back (bench/pmd_rr.sh: a testpmd in macswap on net_vhost).
 * A closed loop: DEPTH frames in flight, each stamped with the TSC when it
 * is sent; every frame that comes back is timed, stamped again and sent
 * again in the same mbuf (no allocation on the loop), so DEPTH stays in
 * flight. The port is whatever EAL made (gvirtio loaded with -d, or DPDK's
 * net_virtio_user).
 *
 *   gv_rr EAL-ARGS -- DEPTHS SECS      e.g. -- 1,8,32 3
 *
 * Per depth: 0.3 s of warm-up, then SECS seconds timed. Output, a line
 * per depth:
 *   GVRR depth=D rtts=N tps=T p50_us=A p99_us=B p99_9_us=C max_us=M lost=L bad=X
 * (tps: round trips a second; lost: frames re-sent after 100 ms without
 * any arrival; bad: frames back that were not ours). Times are bucketed
 * in 10 ns steps up to 1 ms (a longer one counts as 1 ms and in max_us).
 * Exit status 0, 1 on a set-up error or when no round trip completed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#define RR_MAGIC 0x67767272u /* "gvrr" */
#define RR_ETHERTYPE 0x88b5
#define FRAME 60
#define BUCKET_NS 10
#define BUCKETS 100000 /* 1 ms */
#define MAX_DEPTH 256
#define BURST 32

struct rr_payload {
	uint32_t magic;
	uint64_t tsc;
} __attribute__((packed));

static uint64_t hist[BUCKETS + 1];

/* An echoed frame, sent again: its addresses swapped back, a new stamp. */
static void rearm(struct rte_mbuf *m, const struct rte_ether_addr *mac, uint64_t now)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
	rte_ether_addr_copy(mac, &eh->src_addr);
	((struct rr_payload *)(eh + 1))->tsc = now;
}

static struct rte_mbuf *new_frame(struct rte_mempool *mp, const struct rte_ether_addr *mac,
				  uint64_t now)
{
	static const struct rte_ether_addr peer = { { 0x02, 0, 0, 0, 0, 0x01 } };
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rr_payload *p;

	if (!m)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, FRAME);
	memset(eh, 0, FRAME);
	rte_ether_addr_copy(&peer, &eh->dst_addr);
	rte_ether_addr_copy(mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RR_ETHERTYPE);
	p = (struct rr_payload *)(eh + 1);
	p->magic = RR_MAGIC;
	p->tsc = now;
	return m;
}

/* Send all n (the ring has room for DEPTH frames); 0 or -1 when it stays full. */
static int send_all(uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t until = rte_rdtsc() + rte_get_tsc_hz() / 10;
	uint16_t done = 0;

	while (done < n) {
		done += rte_eth_tx_burst(port, 0, pkts + done, n - done);
		if (done < n && rte_rdtsc() > until) {
			rte_pktmbuf_free_bulk(pkts + done, n - done);
			return -1;
		}
	}
	return 0;
}

static double pct(uint64_t total, double q)
{
	uint64_t want = (uint64_t)(q * (double)total), seen = 0;

	for (unsigned int b = 0; b <= BUCKETS; b++) {
		seen += hist[b];
		if (seen > want)
			return (b + 0.5) * BUCKET_NS / 1000.0;
	}
	return BUCKETS * BUCKET_NS / 1000.0;
}

static int run_depth(uint16_t port, struct rte_mempool *mp, const struct rte_ether_addr *mac,
		     unsigned int depth, unsigned int secs)
{
	const uint64_t hz = rte_get_tsc_hz();
	const double ns_per_tsc = 1e9 / (double)hz;
	struct rte_mbuf *pkts[MAX_DEPTH];
	uint64_t start = rte_rdtsc(), t_meas = start + hz * 3 / 10, t_end = t_meas + hz * secs;
	uint64_t last_rx = start, rtts = 0, lost = 0, bad = 0, max_ns = 0, inflight = 0;

	memset(hist, 0, sizeof(hist));
	for (unsigned int i = 0; i < depth; i++) {
		pkts[i] = new_frame(mp, mac, rte_rdtsc());
		if (!pkts[i]) {
			fprintf(stderr, "gv_rr: out of mbufs\n");
			rte_pktmbuf_free_bulk(pkts, i);
			return -1;
		}
	}
	if (send_all(port, pkts, depth))
		return -1;
	inflight = depth;
	while (rte_rdtsc() < t_end) {
		struct rte_mbuf *rx[BURST], *back[BURST];
		uint16_t n = rte_eth_rx_burst(port, 0, rx, BURST), nb = 0;
		uint64_t now = rte_rdtsc();

		if (n == 0) {
			if (now - last_rx > hz / 10) {
				/* a frame was lost: put the loop back to depth */
				while (inflight < depth) {
					struct rte_mbuf *m = new_frame(mp, mac, now);

					if (!m || send_all(port, &m, 1))
						break;
					inflight++;
					lost++;
				}
				last_rx = now;
			}
			continue;
		}
		last_rx = now;
		for (uint16_t i = 0; i < n; i++) {
			const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(rx[i], struct rte_ether_hdr *);
			const struct rr_payload *p = (const struct rr_payload *)(eh + 1);

			if (rx[i]->pkt_len < FRAME || rx[i]->nb_segs != 1 || p->magic != RR_MAGIC) {
				bad++;
				rte_pktmbuf_free(rx[i]);
				continue;
			}
			inflight--;
			if (now >= t_meas && p->tsc >= t_meas) {
				uint64_t ns = (uint64_t)((double)(now - p->tsc) * ns_per_tsc);
				uint64_t b = ns / BUCKET_NS;

				hist[b < BUCKETS ? b : BUCKETS]++;
				max_ns = ns > max_ns ? ns : max_ns;
				rtts++;
			}
			back[nb++] = rx[i];
		}
		for (uint16_t i = 0; i < nb; i++)
			rearm(back[i], mac, now);
		if (nb && send_all(port, back, nb) == 0)
			inflight += nb;
	}
	/* drain what is still in flight */
	for (uint64_t until = rte_rdtsc() + hz / 5; rte_rdtsc() < until;) {
		struct rte_mbuf *rx[BURST];
		uint16_t n = rte_eth_rx_burst(port, 0, rx, BURST);

		rte_pktmbuf_free_bulk(rx, n);
	}
	printf("GVRR depth=%u rtts=%" PRIu64 " tps=%.0f p50_us=%.2f p99_us=%.2f p99_9_us=%.2f "
	       "max_us=%.2f lost=%" PRIu64 " bad=%" PRIu64 "\n",
	       depth, rtts, (double)rtts / secs, pct(rtts, 0.5), pct(rtts, 0.99), pct(rtts, 0.999),
	       max_ns / 1000.0, lost, bad);
	fflush(stdout);
	return rtts ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	struct rte_mempool *mp;
	unsigned int secs, depths[8], nd = 0;
	char *list, *tok, *save;
	int n = rte_eal_init(argc, argv), rc = 0;

	if (n < 0) {
		fprintf(stderr, "gv_rr: EAL init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (argc != 3 || (secs = (unsigned int)atoi(argv[2])) < 1 || secs > 600) {
		fprintf(stderr, "usage: gv_rr EAL-ARGS -- DEPTHS SECS (e.g. 1,8,32 3)\n");
		return 1;
	}
	list = argv[1];
	for (tok = strtok_r(list, ",", &save); tok && nd < 8; tok = strtok_r(NULL, ",", &save)) {
		int d = atoi(tok);

		if (d < 1 || d > MAX_DEPTH) {
			fprintf(stderr, "gv_rr: depth %s: 1-%d\n", tok, MAX_DEPTH);
			return 1;
		}
		depths[nd++] = (unsigned int)d;
	}
	if (rte_eth_dev_count_avail() != 1) {
		fprintf(stderr, "gv_rr: want exactly one port, have %u\n", rte_eth_dev_count_avail());
		return 1;
	}
	mp = rte_pktmbuf_pool_create("rr", 4096, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (!mp || rte_eth_dev_configure(0, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup(0, 0, 256, rte_socket_id(), NULL, mp) ||
	    rte_eth_tx_queue_setup(0, 0, 256, rte_socket_id(), NULL) || rte_eth_dev_start(0) ||
	    rte_eth_macaddr_get(0, &mac)) {
		fprintf(stderr, "gv_rr: port set-up failed\n");
		return 1;
	}
	for (int i = 0; i < 100; i++) {
		if (rte_eth_link_get_nowait(0, &link) == 0 && link.link_status)
			break;
		rte_delay_ms(100);
	}
	if (!link.link_status) {
		fprintf(stderr, "gv_rr: link did not come up in 10 s\n");
		return 1;
	}
	for (unsigned int i = 0; i < nd && rc == 0; i++)
		rc = run_depth(0, mp, &mac, depths[i], secs);
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	if (rte_mempool_avail_count(mp) != mp->size) {
		fprintf(stderr, "gv_rr: %u of %u mbufs not back\n",
			mp->size - rte_mempool_avail_count(mp), mp->size);
		rc = -1;
	}
	rte_eal_cleanup();
	return rc ? 1 : 0;
}
