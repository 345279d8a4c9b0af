/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/guest/gv_mig_peer.c - the host side of the guest tests' live
 * migration cases (tests/guest/run.sh mig*): a DPDK application with four
 * net_vhost ports, two per QEMU (ports 0,1: one QEMU's NIC0 and NIC1;
 * ports 2,3: the other's), that sends two streams of numbered frames at a
 * fixed rate through the guest, which forwards NIC0 <-> NIC1:
 *
 *   stream 0: sent on ports 0 and 2 (whichever is up), back on 1 or 3
 *   stream 1: sent on ports 1 and 3, back on 0 or 2
 *
 * so that traffic goes on whichever QEMU runs the guest, and a migration
 * shows as frames lost and as a gap in the arrivals. It also records the
 * RARPs the guest sends after a migration (GUEST_ANNOUNCE).
 *
 *   gv_mig_peer EAL-ARGS -- RATE      (frames per second per stream)
 *
 * Commands on stdin, one a line:
 *   go          start sending
 *   mark K      open window K: frames sent from now on are counted in it
 *   end K       close window K for sending; once each stream has been
 *               received again for RATE/2 frames (or 20 s), print
 *               "GVPEER window K ..." (below)
 *   stop        stop sending; send STOP frames (the guest's forwarder
 *               ends on them) for 1 s; print "GVPEER stopped ..."
 *   quit        exit
 * Output: "GVPEER ready", "GVPEER link P up|down", "GVPEER rarp MAC port P",
 *   "GVPEER window K s0_sent=N s0_lost=L s0_gap_ms=G s0_resumed=R s1_...
 *   rarp0=M0 rarp1=M1 bad=B dup=D" (lost: frames of the window never
 *   received; gap: the longest time without an arrival of that stream;
 *   resumed: the port its frames came back on after the window, or -1;
 *   rarp: RARPs seen from each of the two guest MACs during the window;
 *   bad: test frames whose bytes were not the ones sent, dup: frames seen
 *   twice, both since the start),
 *   "GVPEER stopped rarp M0 M1" (RARPs since the previous stop).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "gv_mig_frame.h"

#define NB_PORTS 4
#define TICK_US 500
#define BITS (1u << 24) /* per stream: frames a window can hold */

static const struct rte_ether_addr guest_mac[2] = {
	{{0x52, 0x54, 0x00, 0x00, 0x00, 0x10}},
	{{0x52, 0x54, 0x00, 0x00, 0x00, 0x11}},
};

static struct rte_mempool *pool;
static bool link_up[NB_PORTS];

static struct stream {
	uint32_t next_seq;
	/* window */
	uint32_t w_start, w_end;
	uint8_t *seen; /* bit per seq - w_start */
	uint64_t last_t, max_gap;
	uint32_t after; /* arrivals of seq >= w_end */
	int resumed_port;
} st[2];

static int win = -1;       /* open window, or -1 */
static bool closing;       /* end K received, waiting for traffic */
static uint64_t close_deadline;
static unsigned int win_rarp[2], step_rarp[2];
static uint64_t bad, twice; /* since the start: frames with wrong bytes; seen twice */
static uint32_t rate;

static uint64_t now_us(void)
{
	return rte_get_timer_cycles() * 1000000 / rte_get_timer_hz();
}

/* The rest of a 60-byte frame: a pattern of its seq, checked on return
 * (a frame whose guest buffer was not carried over by the migration, or
 * went stale, comes back with another frame's bytes). */
#define FILL_LEN (60 - RTE_ETHER_HDR_LEN - (int)sizeof(struct gv_mig_hdr))
static void fill(uint8_t *p, uint32_t seq)
{
	int i;

	for (i = 0; i < FILL_LEN; i++)
		p[i] = (uint8_t)(seq * 7 + (uint32_t)i * 13);
}

static bool filled(const uint8_t *p, uint32_t seq)
{
	uint8_t want[FILL_LEN];

	fill(want, seq);
	return !memcmp(p, want, FILL_LEN);
}

static struct rte_mbuf *make(uint8_t stream, uint8_t kind, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	struct gv_mig_hdr *h;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 60);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0, 60);
	rte_ether_addr_copy(&guest_mac[stream], &eh->dst_addr);
	eh->src_addr.addr_bytes[0] = 0x02;
	eh->src_addr.addr_bytes[5] = stream;
	eh->ether_type = rte_cpu_to_be_16(GV_MIG_ETHERTYPE);
	h = (struct gv_mig_hdr *)(eh + 1);
	h->magic = GV_MIG_MAGIC;
	h->stream = stream;
	h->kind = kind;
	h->seq = seq;
	fill((uint8_t *)(h + 1), seq);
	return m;
}

/* Stream s goes out on ports s and s + 2, each when its link is up. */
static void send_one(uint8_t s, uint8_t kind, uint32_t seq)
{
	uint16_t p;

	for (p = s; p < NB_PORTS; p += 2) {
		struct rte_mbuf *m;

		if (!link_up[p] || (m = make(s, kind, seq)) == NULL)
			continue;
		if (rte_eth_tx_burst(p, 0, &m, 1) != 1)
			rte_pktmbuf_free(m);
	}
}

static void window_print(void)
{
	int s;

	printf("GVPEER window %d", win);
	for (s = 0; s < 2; s++) {
		struct stream *x = &st[s];
		uint32_t n = x->w_end - x->w_start, got = 0, i;

		for (i = 0; i < n; i++)
			got += (x->seen[i >> 3] >> (i & 7)) & 1;
		printf(" s%d_sent=%u s%d_lost=%u s%d_gap_ms=%" PRIu64 " s%d_resumed=%d", s, n, s,
		       n - got, s, x->max_gap / 1000, s, x->resumed_port);
	}
	printf(" rarp0=%u rarp1=%u bad=%" PRIu64 " dup=%" PRIu64 "\n", win_rarp[0], win_rarp[1],
	       bad, twice);
	fflush(stdout);
}

static void receive(uint16_t port, uint64_t t)
{
	struct rte_mbuf *m[32];
	uint16_t n, k;

	n = rte_eth_rx_burst(port, 0, m, 32);
	for (k = 0; k < n; k++) {
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m[k], struct rte_ether_hdr *);
		uint16_t type = rte_be_to_cpu_16(eh->ether_type);

		if (type == RTE_ETHER_TYPE_RARP && m[k]->data_len >= sizeof(*eh)) {
			int g;
			char buf[RTE_ETHER_ADDR_FMT_SIZE];

			rte_ether_format_addr(buf, sizeof(buf), &eh->src_addr);
			printf("GVPEER rarp %s port %u\n", buf, port);
			fflush(stdout);
			for (g = 0; g < 2; g++)
				if (rte_is_same_ether_addr(&eh->src_addr, &guest_mac[g])) {
					win_rarp[g] += win >= 0;
					step_rarp[g]++;
				}
		} else if (type == GV_MIG_ETHERTYPE && m[k]->data_len >= sizeof(*eh) + sizeof(struct gv_mig_hdr)) {
			const struct gv_mig_hdr *h = (const struct gv_mig_hdr *)(eh + 1);
			struct stream *x;
			uint32_t off;

			/* stream s comes back on the other NIC's ports */
			if (h->magic != GV_MIG_MAGIC || h->kind != GV_MIG_DATA || h->stream > 1 ||
			    (port & 1) == h->stream)
				continue;
			x = &st[h->stream];
			if (m[k]->data_len < 60 || !filled((const uint8_t *)(h + 1), h->seq)) {
				bad++;
				continue;
			}
			if (win < 0)
				continue;
			if (t - x->last_t > x->max_gap)
				x->max_gap = t - x->last_t;
			x->last_t = t;
			off = h->seq - x->w_start;
			if (off < BITS && (!closing || h->seq < x->w_end)) {
				twice += (x->seen[off >> 3] >> (off & 7)) & 1;
				x->seen[off >> 3] |= (uint8_t)(1u << (off & 7));
			}
			if (closing && h->seq >= x->w_end && ++x->after == 1)
				x->resumed_port = port;
		}
	}
	rte_pktmbuf_free_bulk(m, n);
}

static void command(char *line, bool *sending, bool *quit)
{
	int k, s;

	if (!strcmp(line, "go")) {
		*sending = true;
	} else if (sscanf(line, "mark %d", &k) == 1) {
		win = k;
		closing = false;
		win_rarp[0] = win_rarp[1] = 0;
		for (s = 0; s < 2; s++) {
			memset(st[s].seen, 0, BITS / 8);
			st[s].w_start = st[s].w_end = st[s].next_seq;
			st[s].last_t = now_us();
			st[s].max_gap = 0;
			st[s].after = 0;
			st[s].resumed_port = -1;
		}
	} else if (sscanf(line, "end %d", &k) == 1 && k == win && !closing) {
		closing = true;
		close_deadline = now_us() + 20 * 1000000ull;
		for (s = 0; s < 2; s++)
			st[s].w_end = st[s].next_seq;
	} else if (!strcmp(line, "stop")) {
		uint64_t end = now_us() + 1000000, t;
		uint16_t p;

		*sending = false;
		while ((t = now_us()) < end) {
			send_one(0, GV_MIG_STOP, 0);
			send_one(1, GV_MIG_STOP, 0);
			for (p = 0; p < NB_PORTS; p++)
				receive(p, t);
			rte_delay_us_sleep(10000);
		}
		printf("GVPEER stopped rarp %u %u\n", step_rarp[0], step_rarp[1]);
		step_rarp[0] = step_rarp[1] = 0;
	} else if (!strcmp(line, "quit")) {
		*quit = true;
	} else {
		printf("GVPEER error: unknown command \"%s\"\n", line);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char line[128];
	size_t len = 0;
	bool sending = false, quit = false;
	uint64_t next_tick, next_link = 0;
	uint32_t per_tick, i;
	uint16_t p;
	int n, s;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		printf("GVPEER error: rte_eal_init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	rate = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
	if (rate < 1000 || rate > 1000000 || rte_eth_dev_count_avail() != NB_PORTS) {
		printf("GVPEER error: usage: ... -- RATE (1000..1000000), with %d ports (have %u)\n",
		       NB_PORTS, rte_eth_dev_count_avail());
		return 2;
	}
	per_tick = (uint32_t)((uint64_t)rate * TICK_US / 1000000);
	pool = rte_pktmbuf_pool_create("gvpeer", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_socket_id());
	for (s = 0; s < 2; s++)
		st[s].seen = calloc(1, BITS / 8);
	if (pool == NULL || !st[0].seen || !st[1].seen) {
		printf("GVPEER error: out of memory\n");
		return 1;
	}
	for (p = 0; p < NB_PORTS; p++) {
		struct rte_eth_conf conf;

		memset(&conf, 0, sizeof(conf));
		if (rte_eth_dev_configure(p, 1, 1, &conf) ||
		    rte_eth_rx_queue_setup(p, 0, 1024, rte_socket_id(), NULL, pool) ||
		    rte_eth_tx_queue_setup(p, 0, 1024, rte_socket_id(), NULL) ||
		    rte_eth_dev_start(p)) {
			printf("GVPEER error: cannot start port %u\n", p);
			return 1;
		}
	}
	printf("GVPEER ready, %u frames/s per stream\n", rate);
	fflush(stdout);
	next_tick = now_us();
	while (!quit) {
		uint64_t t = now_us();
		struct pollfd pfd = {.fd = 0, .events = POLLIN};

		if (t >= next_link) {
			for (p = 0; p < NB_PORTS; p++) {
				struct rte_eth_link l;

				if (rte_eth_link_get_nowait(p, &l) == 0 &&
				    (bool)l.link_status != link_up[p]) {
					link_up[p] = l.link_status;
					printf("GVPEER link %u %s\n", p, link_up[p] ? "up" : "down");
					fflush(stdout);
				}
			}
			next_link = t + 100000;
		}
		if (t >= next_tick) {
			if (sending)
				for (i = 0; i < per_tick; i++)
					for (s = 0; s < 2; s++)
						send_one((uint8_t)s, GV_MIG_DATA, st[s].next_seq++);
			next_tick += TICK_US;
			if (next_tick < t)
				next_tick = t + TICK_US; /* fell behind: do not burst */
		}
		for (p = 0; p < NB_PORTS; p++)
			receive(p, t);
		if (closing && ((st[0].after >= rate / 2 && st[1].after >= rate / 2) ||
				t > close_deadline)) {
			window_print();
			win = -1;
			closing = false;
		}
		while (poll(&pfd, 1, 0) == 1) {
			char c;

			if (read(0, &c, 1) != 1) {
				quit = true; /* the script went away */
				break;
			}
			if (c == '\n') {
				line[len] = 0;
				command(line, &sending, &quit);
				len = 0;
			} else if (len < sizeof(line) - 1) {
				line[len++] = c;
			}
		}
		rte_delay_us_sleep(100);
	}
	for (p = 0; p < NB_PORTS; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return 0;
}
