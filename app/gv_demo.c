/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_demo.c - the README's run command: a vhost-user back-end (DPDK's
 * net_vhost) and a gvirtio port in one process, traffic each way for a
 * few seconds per row with a live progress line, every payload checked,
 * and a table of layout, path, direction, Mpps, Gbit/s.
 *
 * lcore 0 drives the gvirtio port, lcore 1 the back-end. Guest-TX: the
 * gvirtio port sends, the back-end receives and checks. Guest-RX: the
 * back-end sends, the gvirtio port receives and checks. Each packet
 * carries a sequence number and a pattern derived from it; the receiver
 * expects consecutive numbers (a sender counts only what was accepted).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_bus_vdev.h>
#include <rte_dev.h>

#define BURST 32
#define ETHERTYPE_DEMO 0x88b5 /* local experimental */
#define HDR_LEN (RTE_ETHER_HDR_LEN + 8)

struct flow {
	volatile int stop;
	uint64_t seq_next; /* receiver: next expected */
	uint64_t rx_pkts, rx_bytes, bad;
	uint16_t port;
	struct rte_mempool *mp;
	uint32_t len;
};

static void fill(struct rte_mbuf *m, uint64_t seq, uint32_t len)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;

	memset(&eh->dst_addr, 0x02, RTE_ETHER_ADDR_LEN);
	memset(&eh->src_addr, 0x04, RTE_ETHER_ADDR_LEN);
	eh->ether_type = rte_cpu_to_be_16(ETHERTYPE_DEMO);
	memcpy(p + RTE_ETHER_HDR_LEN, &seq, 8);
	for (uint32_t i = HDR_LEN; i < len; i++)
		p[i] = (uint8_t)(seq + i);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
}

static int check(struct flow *f, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t seq;

	if (m->pkt_len != f->len || m->nb_segs != 1)
		return -1;
	memcpy(&seq, p + RTE_ETHER_HDR_LEN, 8);
	if (seq != f->seq_next)
		return -1;
	for (uint32_t i = HDR_LEN; i < f->len; i++)
		if (p[i] != (uint8_t)(seq + i))
			return -1;
	f->seq_next++;
	return 0;
}

/* One burst; the sequence counts only packets the port accepted. */
static void send_step(struct flow *f)
{
	struct rte_mbuf *m[BURST];
	uint16_t sent;

	if (rte_pktmbuf_alloc_bulk(f->mp, m, BURST))
		return;
	for (int i = 0; i < BURST; i++)
		fill(m[i], f->seq_next + (uint64_t)i, f->len);
	sent = rte_eth_tx_burst(f->port, 0, m, BURST);
	f->seq_next += sent;
	if (sent < BURST) /* renumbered next time */
		rte_pktmbuf_free_bulk(m + sent, BURST - sent);
}

static void recv_step(struct flow *f)
{
	struct rte_mbuf *m[BURST];
	uint16_t n = rte_eth_rx_burst(f->port, 0, m, BURST);

	for (uint16_t i = 0; i < n; i++) {
		if (check(f, m[i]))
			f->bad++;
		f->rx_bytes += m[i]->pkt_len;
	}
	f->rx_pkts += n;
	rte_pktmbuf_free_bulk(m, n);
}

struct row_ctx {
	struct flow *snd, *rcv;
	bool backend_sends;
};

static int backend_lcore(void *arg)
{
	struct row_ctx *c = arg;

	struct flow *f = c->backend_sends ? c->snd : c->rcv;

	while (!f->stop) {
		if (c->backend_sends)
			send_step(f);
		else
			recv_step(f);
	}
	return 0;
}

static int port_by_name(const char *name, uint16_t *port)
{
	return rte_eth_dev_get_port_by_name(name, port);
}

static int port_setup(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };
	int ret = rte_eth_dev_configure(port, 1, 1, &conf);

	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 512, 0, NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 512, 0, NULL);
	return ret;
}

struct result {
	const char *layout, *path, *dir;
	double mpps, gbps;
	uint64_t checked, bad;
	int err;
};

static const char *sock_dir(void)
{
	static char dir[64];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/gvdemo.XXXXXX");
		if (!mkdtemp(dir))
			return NULL;
	}
	return dir;
}

static void run_row(int idx, int total, const char *layout, const char *path, bool guest_tx,
		    double secs, uint32_t len, struct rte_mempool *mp, struct result *r)
{
	char vh[256], gv[320], sock[128];
	uint16_t vport = RTE_MAX_ETHPORTS, gport = RTE_MAX_ETHPORTS;
	struct flow snd = { .mp = mp, .len = len }, rcv = { .len = len };
	struct row_ctx ctx = { &snd, &rcv, !guest_tx };
	uint64_t hz = rte_get_timer_hz(), t0, next, t_end;
	struct rte_eth_link link;
	int ret;

	memset(r, 0, sizeof(*r));
	r->layout = layout;
	r->path = path;
	r->dir = guest_tx ? "guest TX" : "guest RX";
	snprintf(sock, sizeof(sock), "%s/s%d.sock", sock_dir(), idx);
	snprintf(vh, sizeof(vh), "net_vhost%d,iface=%s,client=0,queues=1", idx, sock);
	snprintf(gv, sizeof(gv), "net_gvirtio_user%d,path=%s,packed_vq=%d,datapath=%s", idx, sock,
		 !strcmp(layout, "packed"), path);
	/* net_vhost creates its socket at configure: set it up first. */
	ret = rte_dev_probe(vh);
	snprintf(vh, sizeof(vh), "net_vhost%d", idx);
	if (ret == 0)
		ret = port_by_name(vh, &vport);
	if (ret == 0)
		ret = port_setup(vport, mp);
	if (ret == 0)
		ret = rte_dev_probe(gv);
	snprintf(gv, sizeof(gv), "net_gvirtio_user%d", idx);
	if (ret == 0)
		ret = port_by_name(gv, &gport);
	if (ret == 0)
		ret = port_setup(gport, mp);
	if (ret == 0)
		ret = rte_eth_dev_start(vport);
	if (ret == 0)
		ret = rte_eth_dev_start(gport);
	if (ret) {
		r->err = 1;
		fprintf(stderr, "\nrow %d: could not set up the ports: %s\n", idx, strerror(-ret));
		goto out;
	}
	/* The back-end's link comes up once it has the rings: bounded wait. */
	t_end = rte_get_timer_cycles() + 5 * hz;
	do {
		rte_eth_link_get_nowait(vport, &link);
	} while (!link.link_status && rte_get_timer_cycles() < t_end);
	if (!link.link_status) {
		r->err = 1;
		fprintf(stderr, "\nrow %d: back-end link did not come up\n", idx);
		goto out;
	}
	snd.port = guest_tx ? gport : vport;
	rcv.port = guest_tx ? vport : gport;
	rte_eal_remote_launch(backend_lcore, &ctx, rte_get_next_lcore(-1, 1, 0));
	t0 = rte_get_timer_cycles();
	next = t0 + hz / 4;
	t_end = t0 + (uint64_t)(secs * (double)hz);
	/* lcore 0: the gvirtio side, with a progress line 4 times a second. */
	while (rte_get_timer_cycles() < t_end) {
		if (guest_tx)
			send_step(&snd);
		else
			recv_step(&rcv);
		if (rte_get_timer_cycles() >= next) {
			double el = (double)(rte_get_timer_cycles() - t0) / (double)hz;

			next += hz / 4;
			printf("\r[%2d/%d] %-6s %-8s %-8s %4.1fs %8.2f Mpps  checked %" PRIu64
			       "  bad %" PRIu64 "   ",
			       idx, total, layout, path, r->dir, el,
			       (double)rcv.rx_pkts / el / 1e6, rcv.rx_pkts, rcv.bad);
			fflush(stdout);
		}
	}
	snd.stop = rcv.stop = 1;
	rte_eal_mp_wait_lcore();
	r->mpps = (double)rcv.rx_pkts / secs / 1e6;
	r->gbps = (double)rcv.rx_bytes * 8 / secs / 1e9;
	r->checked = rcv.rx_pkts;
	r->bad = rcv.bad;
	if (rcv.rx_pkts == 0)
		r->err = 1;
out:
	if (gport != RTE_MAX_ETHPORTS) {
		rte_eth_dev_stop(gport);
		rte_eth_dev_close(gport);
	}
	if (vport != RTE_MAX_ETHPORTS) {
		rte_eth_dev_stop(vport);
		rte_eth_dev_close(vport);
	}
	rte_eal_hotplug_remove("vdev", gv);
	rte_eal_hotplug_remove("vdev", vh);
	unlink(sock);
}

int main(int argc, char **argv)
{
	static const char *layouts[] = { "split", "packed" };
	static const char *paths[] = { "simple", "inorder", "full" };
	struct result res[12];
	double secs = 2.0;
	uint32_t len = 64;
	int nrows = 0, failed = 0, ret, opt;
	struct rte_mempool *mp;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	while ((opt = getopt(argc, argv, "s:l:")) != -1) {
		if (opt == 's')
			secs = atof(optarg);
		else if (opt == 'l')
			len = (uint32_t)atoi(optarg);
	}
	if (secs <= 0 || len < HDR_LEN || len > 1518) {
		fprintf(stderr, "usage: -s seconds-per-row (>0) -l frame-length (%d..1518)\n",
			HDR_LEN);
		return 1;
	}
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "needs 2 lcores (-l 0,1)\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("gvdemo", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!mp) {
		fprintf(stderr, "no mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	printf("gvirtio demo: %u-byte frames, %.1f s per row, gvirtio on lcore %u, "
	       "DPDK vhost-user back-end on lcore %u\n",
	       len, secs, rte_get_main_lcore(), rte_get_next_lcore(-1, 1, 0));
	for (int l = 0; l < 2; l++)
		for (int p = 0; p < 3; p++)
			for (int d = 0; d < 2; d++) {
				run_row(nrows + 1, 12, layouts[l], paths[p], d == 0, secs, len, mp,
					&res[nrows]);
				nrows++;
			}
	printf("\n\n| layout | path | direction | Mpps | Gbit/s | packets checked | bad |\n");
	printf("| --- | --- | --- | ---: | ---: | ---: | ---: |\n");
	for (int i = 0; i < nrows; i++) {
		struct result *r = &res[i];

		printf("| %s | %s | %s | %.2f | %.2f | %" PRIu64 " | %" PRIu64 "%s |\n", r->layout,
		       r->path, r->dir, r->mpps, r->gbps, r->checked, r->bad,
		       r->err ? " (error)" : "");
		failed += r->err || r->bad;
	}
	printf("\n%s: %d rows, %d with errors. Gbit/s counts frame bytes without CRC.\n",
	       failed ? "FAIL" : "OK", nrows, failed);
	rte_mempool_free(mp);
	if (sock_dir())
		rmdir(sock_dir());
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
