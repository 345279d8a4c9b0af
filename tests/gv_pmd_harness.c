/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pmd_harness.c - see gv_pmd_harness.h.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_vhost.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_vhost.h>

#include "gv_pmd_harness.h"

#define GVH_ETHERTYPE 0x88b5 /* local experimental */
#define GVH_BURST 32

static char err_buf[512];
static char waker_path[128];
static bool eal_up;
static char sock_dir[64];

static int seterr(int ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int seterr(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
	return ret;
}

const char *gvh_error(void)
{
	return err_buf;
}

double gvh_now(void)
{
	return (double)rte_get_timer_cycles() / (double)rte_get_timer_hz();
}

/* ---------------------------------------------------------------- EAL -- */

int gvh_eal_init(const char *prefix, const char *const *log_levels)
{
	static char pfx[96];
	static char lvl[16][96];
	char *argv[32];
	int argc = 0;

	if (eal_up)
		return 0;
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s_%d", prefix ? prefix : "gvtest", (int)getpid());
	argv[argc++] = (char *)"gvtest";
	argv[argc++] = (char *)"--no-huge";
	argv[argc++] = (char *)"-m";
	argv[argc++] = (char *)"512";
	argv[argc++] = (char *)"--no-pci";
	argv[argc++] = (char *)"--no-telemetry";
	argv[argc++] = pfx;
	argv[argc++] = (char *)"-l";
	argv[argc++] = (char *)"0";
	for (int i = 0; log_levels && log_levels[i] && i < 16; i++) {
		snprintf(lvl[i], sizeof(lvl[i]), "--log-level=%s", log_levels[i]);
		argv[argc++] = lvl[i];
	}
	argv[argc] = NULL;
	return gvh_eal_init_args(argc, argv) < 0 ? -rte_errno : 0;
}

int gvh_eal_init_args(int argc, char **argv)
{
	int ret;

	if (eal_up)
		return 0;
	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return seterr(ret, "rte_eal_init: %s", rte_strerror(rte_errno));
	eal_up = true;
	return ret;
}

const char *gvh_sock_dir(void)
{
	if (!sock_dir[0]) {
		snprintf(sock_dir, sizeof(sock_dir), "/tmp/gvtest.XXXXXX");
		if (!mkdtemp(sock_dir)) {
			seterr(-errno, "mkdtemp: %s", strerror(errno));
			sock_dir[0] = 0;
			return NULL;
		}
	}
	return sock_dir;
}

void gvh_cleanup(void)
{
	if (waker_path[0])
		rte_vhost_driver_unregister(waker_path);
	waker_path[0] = 0;
	if (sock_dir[0]) {
		DIR *d = opendir(sock_dir);
		struct dirent *e;
		char path[sizeof(sock_dir) + 260];

		while (d && (e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", sock_dir, e->d_name);
			unlink(path);
		}
		if (d)
			closedir(d);
		rmdir(sock_dir);
		sock_dir[0] = 0;
	}
	if (eal_up)
		rte_eal_cleanup();
	eal_up = false;
}

/* -------------------------------------------------------------- pools -- */

struct rte_mempool *gvh_pool(unsigned int n)
{
	static unsigned int seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "gvh_mp%u", seq++);
	mp = rte_pktmbuf_pool_create(name, n, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (!mp)
		seterr(-rte_errno, "pool of %u mbufs: %s", n, rte_strerror(rte_errno));
	return mp;
}

unsigned int gvh_pool_avail(const struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp);
}

bool gvh_pool_full(const struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp) == mp->size;
}

/* -------------------------------------------------------------- ports -- */

/*
 * DPDK's vhost library adds a new listening socket to its event thread's
 * poll set without waking the thread: a back-end's socket is served only
 * after the thread's 1 s poll timeout. A connection to a socket it
 * already polls wakes it: a bare vhost-user socket (no port) for that,
 * poked after each new listening back-end. Only a speed-up: without it
 * the connection is accepted a second later.
 */
static const struct rte_vhost_device_ops waker_ops;

static void waker_poke(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!waker_path[0]) {
		const char *dir = gvh_sock_dir();

		if (!dir)
			return;
		snprintf(waker_path, sizeof(waker_path), "%s/waker.sock", dir);
		if (rte_vhost_driver_register(waker_path, 0) ||
		    rte_vhost_driver_callback_register(waker_path, &waker_ops) ||
		    rte_vhost_driver_start(waker_path)) {
			rte_vhost_driver_unregister(waker_path);
			waker_path[0] = 0;
			return;
		}
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", waker_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		/* nothing to do: the slow way it is */
	}
	close(fd);
}

int gvh_port_setup(uint16_t port, const struct gvh_port_conf *c)
{
	struct rte_eth_conf conf;
	uint16_t nd = c->nb_desc, mtu = 0, nq;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = c->intr_lsc;
	conf.intr_conf.rxq = c->intr_rxq;
	conf.rxmode.offloads = c->rx_offloads;
	conf.txmode.offloads = c->tx_offloads;
	conf.rxmode.mtu = c->mtu;
	nq = c->nb_queues ? c->nb_queues : 1;
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	if (ret)
		return seterr(ret, "port %u: configure: %s", port, strerror(-ret));
	if (c->mtu) {
		/* net_vhost has no MTU op: the configure above set it. */
		ret = rte_eth_dev_set_mtu(port, c->mtu);
		if (ret && ret != -ENOTSUP)
			return seterr(ret, "port %u: MTU %u: %s", port, c->mtu, strerror(-ret));
		rte_eth_dev_get_mtu(port, &mtu);
		if (mtu != c->mtu)
			return seterr(-EINVAL, "port %u: MTU is %u, not %u", port, mtu, c->mtu);
	}
	for (uint16_t q = 0; q < nq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nd, SOCKET_ID_ANY, NULL, c->mp);
		if (ret)
			return seterr(ret, "port %u: rx queue %u (%u): %s", port, q, nd,
				      strerror(-ret));
		ret = rte_eth_tx_queue_setup(port, q, nd, SOCKET_ID_ANY, NULL);
		if (ret)
			return seterr(ret, "port %u: tx queue %u (%u): %s", port, q, nd,
				      strerror(-ret));
	}
	return 0;
}

void gvh_pair_init(struct gvh_pair *p)
{
	static unsigned int seq;
	const char *dir = gvh_sock_dir();

	memset(p, 0, sizeof(*p));
	p->idx = seq++;
	snprintf(p->sock, sizeof(p->sock), "%s/s%u.sock", dir ? dir : "/tmp", p->idx);
	snprintf(p->vh_name, sizeof(p->vh_name), "net_vhost%u", p->idx);
	snprintf(p->gv_name, sizeof(p->gv_name), "net_gvirtio_user%u", p->idx);
	p->vh = p->gv = GVH_NO_PORT;
}

int gvh_vhost_add(struct gvh_pair *p, bool client, const struct gvh_port_conf *c)
{
	char args[384];
	int ret;

	snprintf(args, sizeof(args), "%s,iface=%s,client=%d,queues=%u%s%s", p->vh_name, p->sock,
		 client ? 1 : 0, c->nb_queues ? c->nb_queues : 1u,
		 c->vh_devargs && *c->vh_devargs ? "," : "", c->vh_devargs ? c->vh_devargs : "");
	ret = rte_dev_probe(args);
	if (ret)
		return seterr(ret, "probe %s: %s", args, strerror(-ret));
	ret = rte_eth_dev_get_port_by_name(p->vh_name, &p->vh);
	if (ret)
		return seterr(ret, "%s: no port", p->vh_name);
	ret = gvh_port_setup(p->vh, c); /* the socket exists from here */
	if (ret == 0 && !client)
		waker_poke();
	return ret;
}

int gvh_gv_add(struct gvh_pair *p, const char *devargs, const struct gvh_port_conf *c)
{
	char args[512];
	int ret;

	snprintf(args, sizeof(args), "%s,path=%s%s%s", p->gv_name, p->sock,
		 devargs && *devargs ? "," : "", devargs ? devargs : "");
	ret = rte_dev_probe(args);
	if (ret)
		return seterr(ret, "probe %s: %s", args, strerror(-ret));
	ret = rte_eth_dev_get_port_by_name(p->gv_name, &p->gv);
	if (ret)
		return seterr(ret, "%s: no port", p->gv_name);
	return gvh_port_setup(p->gv, c);
}

int gvh_wait_link(uint16_t port, bool up, double timeout_s)
{
	double end = gvh_now() + timeout_s;
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(port, &link) == 0 && (link.link_status != 0) == up)
			return 0;
		if (gvh_now() > end)
			return seterr(-ETIMEDOUT, "port %u: link not %s after %.1f s", port,
				      up ? "up" : "down", timeout_s);
		sched_yield();
	}
}

static int lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct gvh_lsc *c = arg;
	struct rte_eth_link link;

	(void)ret;
	if (type != RTE_ETH_EVENT_INTR_LSC || rte_eth_link_get_nowait(port, &link))
		return 0;
	__atomic_fetch_add(link.link_status ? &c->up : &c->down, 1, __ATOMIC_RELEASE);
	return 0;
}

int gvh_lsc_watch(uint16_t port, struct gvh_lsc *c)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC, lsc_cb, c);
	return ret ? seterr(ret, "port %u: LSC callback: %s", port, strerror(-ret)) : 0;
}

void gvh_lsc_unwatch(uint16_t port, struct gvh_lsc *c)
{
	rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_INTR_LSC, lsc_cb, c);
}

int gvh_count(const int *counter)
{
	return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

int gvh_wait_count(const int *counter, int want, double timeout_s, const char *what)
{
	double end = gvh_now() + timeout_s;

	while (gvh_count(counter) < want) {
		if (gvh_now() > end)
			return seterr(-ETIMEDOUT, "%s: %d of %d after %.1f s", what,
				      gvh_count(counter), want, timeout_s);
		sched_yield();
	}
	return 0;
}

int gvh_pair_start(struct gvh_pair *p, double timeout_s)
{
	int ret = rte_eth_dev_start(p->vh);

	if (ret)
		return seterr(ret, "start %s: %s", p->vh_name, strerror(-ret));
	ret = rte_eth_dev_start(p->gv);
	if (ret)
		return seterr(ret, "start %s: %s", p->gv_name, strerror(-ret));
	ret = gvh_wait_link(p->vh, true, timeout_s);
	if (ret == 0)
		ret = gvh_wait_link(p->gv, true, timeout_s);
	return ret;
}

int gvh_port_remove(uint16_t *port)
{
	struct rte_eth_dev_info info;
	char name[RTE_ETH_NAME_MAX_LEN];
	int ret;

	if (*port == GVH_NO_PORT)
		return 0;
	ret = rte_eth_dev_info_get(*port, &info);
	if (ret)
		return seterr(ret, "port %u: no device", *port);
	snprintf(name, sizeof(name), "%s", rte_dev_name(info.device));
	ret = rte_dev_remove(info.device);
	if (ret)
		return seterr(ret, "remove %s: %s", name, strerror(-ret));
	*port = GVH_NO_PORT;
	return 0;
}

void gvh_pair_destroy(struct gvh_pair *p)
{
	/* gvirtio first: it stops its rings while the back-end still answers. */
	gvh_port_remove(&p->gv);
	gvh_port_remove(&p->vh);
	unlink(p->sock);
}

int gvh_vhost_features(uint16_t vh_port, uint64_t *features)
{
	int vid = rte_eth_vhost_get_vid_from_port_id(vh_port);

	if (vid < 0)
		return seterr(-ENODEV, "port %u: no vhost device", vh_port);
	if (rte_vhost_get_negotiated_features(vid, features))
		return seterr(-EIO, "port %u: no negotiated features", vh_port);
	return 0;
}

int gvh_vhost_ring_size(uint16_t vh_port, uint16_t vring, uint16_t *size)
{
	int vid = rte_eth_vhost_get_vid_from_port_id(vh_port);
	struct rte_vhost_vring vr;

	if (vid < 0)
		return seterr(-ENODEV, "port %u: no vhost device", vh_port);
	if (rte_vhost_get_vhost_vring(vid, vring, &vr))
		return seterr(-EIO, "port %u: no vring %u", vh_port, vring);
	*size = vr.size;
	return 0;
}

int gvh_xstat(uint16_t port, const char *name, uint64_t *value)
{
	uint64_t id;
	int ret = rte_eth_xstats_get_id_by_name(port, name, &id);

	if (ret)
		return seterr(ret, "port %u: no xstat %s", port, name);
	ret = rte_eth_xstats_get_by_id(port, &id, value, 1);
	return ret == 1 ? 0 : seterr(ret < 0 ? ret : -EIO, "port %u: xstat %s unreadable", port, name);
}

/* ------------------------------------------------------------ traffic -- */

/* The pattern byte at offset `off` of frame `seq`: position-dependent everywhere. */
static inline uint8_t pat(uint64_t seq, uint32_t off)
{
	uint32_t x = off * 0x9E3779B1u + (uint32_t)seq * 0x85EBCA77u + (uint32_t)(seq >> 32);

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	return (uint8_t)(x ^ (x >> 13));
}

static void fill_hdr(uint8_t *p, uint64_t seq)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)p;
	static const struct rte_ether_addr dst = { { 0x02, 0, 0, 0, 0, 0x01 } };
	static const struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0, 0x02 } };

	rte_ether_addr_copy(&dst, &eh->dst_addr);
	rte_ether_addr_copy(&src, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(GVH_ETHERTYPE);
	memcpy(p + RTE_ETHER_HDR_LEN, &seq, 8);
}

/* Writes bytes [off, off + n) of the frame being built to d. */
typedef void fill_fn(uint8_t *d, uint32_t off, uint32_t n, const void *arg);

/* A chain of mbufs from `mp` holding `len` bytes written by `fill`. */
static struct rte_mbuf *chain_alloc(struct rte_mempool *mp, uint32_t len, fill_fn *fill,
				    const void *arg)
{
	uint32_t room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM, off = 0;
	struct rte_mbuf *head = NULL;

	while (off < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint32_t n = len - off < room ? len - off : room;

		if (!m)
			goto fail;
		fill((uint8_t *)rte_pktmbuf_append(m, (uint16_t)n), off, n, arg);
		off += n;
		if (!head) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m)) {
			rte_pktmbuf_free(m);
			goto fail;
		}
	}
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

static void fill_pat(uint8_t *d, uint32_t off, uint32_t n, const void *arg)
{
	const uint64_t seq = *(const uint64_t *)arg;

	for (uint32_t i = 0; i < n; i++)
		d[i] = pat(seq, off + i);
	if (off == 0)
		fill_hdr(d, seq);
}

struct rte_mbuf *gvh_pkt_alloc(struct rte_mempool *mp, uint64_t seq, uint32_t len)
{
	uint32_t room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;

	if (len < GVH_HDR_LEN || len > GVH_MAX_FRAME || room < GVH_HDR_LEN)
		return NULL;
	return chain_alloc(mp, len, fill_pat, &seq);
}

static void fill_copy(uint8_t *d, uint32_t off, uint32_t n, const void *arg)
{
	memcpy(d, (const uint8_t *)arg + off, n);
}

struct rte_mbuf *gvh_mbuf_copy(struct rte_mempool *mp, const uint8_t *f, uint32_t len)
{
	return chain_alloc(mp, len, fill_copy, f);
}

int gvh_pkt_check(const struct rte_mbuf *m, uint64_t seq, uint32_t len)
{
	uint8_t hdr[GVH_HDR_LEN], want[GVH_HDR_LEN];
	uint32_t off = 0, segs = 0;
	uint64_t got;

	if (m->pkt_len != len)
		return -1;
	for (const struct rte_mbuf *s = m; s; s = s->next) {
		off += s->data_len;
		segs++;
	}
	if (off != len || segs != m->nb_segs || m->data_len < GVH_HDR_LEN)
		return -4;
	memcpy(hdr, rte_pktmbuf_mtod(m, const uint8_t *), GVH_HDR_LEN);
	memcpy(&got, hdr + RTE_ETHER_HDR_LEN, 8);
	if (got != seq)
		return -2;
	for (uint32_t i = 0; i < GVH_HDR_LEN; i++)
		want[i] = pat(seq, i);
	fill_hdr(want, seq);
	if (memcmp(hdr, want, GVH_HDR_LEN))
		return -3;
	off = 0;
	for (const struct rte_mbuf *s = m; s; s = s->next) {
		const uint8_t *d = rte_pktmbuf_mtod(s, const uint8_t *);

		for (uint32_t i = off < GVH_HDR_LEN ? GVH_HDR_LEN - off : 0; i < s->data_len; i++)
			if (d[i] != pat(seq, off + i))
				return -3;
		off += s->data_len;
	}
	return 0;
}

static void check_rx(struct gvh_flow *f, uint64_t *next, struct rte_mbuf *m)
{
	uint64_t got = UINT64_MAX;
	int r = gvh_pkt_check(m, *next, f->len);

	if (m->nb_segs > f->max_segs)
		f->max_segs = m->nb_segs;
	f->rx_bytes += m->pkt_len;
	f->received++;
	switch (r) {
	case 0:
		(*next)++;
		return;
	case -1:
		f->bad_len++;
		break;
	case -2:
		f->bad_seq++;
		break;
	case -3:
		f->bad_payload++;
		break;
	default:
		f->bad_segs++;
		break;
	}
	if (m->data_len >= GVH_HDR_LEN)
		memcpy(&got, rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN), 8);
	if (f->bad_len + f->bad_seq + f->bad_payload + f->bad_segs <= 5)
		seterr(-EIO, "port %u: frame %" PRIu64 " (expected %" PRIu64 "): error %d, "
		       "%u bytes in %u segments (expected %u bytes)", f->rx_port, got, *next, r,
		       m->pkt_len, m->nb_segs, f->len);
	/* Resynchronise on what came, so one loss is one error. */
	*next = r == -2 ? got + 1 : *next + 1;
}

int gvh_transfer(struct gvh_flow *f)
{
	double end = gvh_now() + (f->timeout_s > 0 ? f->timeout_s : 10.0);
	uint64_t next = f->seq0;

	f->sent = f->received = f->rx_bytes = 0;
	f->bad_len = f->bad_seq = f->bad_payload = f->bad_segs = 0;
	f->max_segs = 0;
	f->no_mbuf = 0;
	while (f->received < f->count) {
		struct rte_mbuf *pk[GVH_BURST];
		uint16_t n = 0, k, nr;

		if (gvh_now() > end)
			break;
		while (f->sent + n < f->count && n < GVH_BURST) {
			pk[n] = gvh_pkt_alloc(f->tx_mp, f->seq0 + f->sent + n, f->len);
			if (!pk[n]) {
				f->no_mbuf++;
				break;
			}
			n++;
		}
		k = n ? rte_eth_tx_burst(f->tx_port, 0, pk, n) : 0;
		for (uint16_t i = k; i < n; i++)
			rte_pktmbuf_free(pk[i]); /* renumbered next round */
		f->sent += k;
		nr = rte_eth_rx_burst(f->rx_port, 0, pk, GVH_BURST);
		for (uint16_t i = 0; i < nr; i++) {
			check_rx(f, &next, pk[i]);
			rte_pktmbuf_free(pk[i]);
		}
		if (n == 0 && nr == 0)
			sched_yield();
	}
	/* Anything beyond count (duplicates) shows up as sequence errors. */
	for (int i = 0; i < 4; i++) {
		struct rte_mbuf *pk[GVH_BURST];
		uint16_t nr = rte_eth_rx_burst(f->rx_port, 0, pk, GVH_BURST);

		for (uint16_t j = 0; j < nr; j++) {
			check_rx(f, &next, pk[j]);
			f->bad_seq++;
			rte_pktmbuf_free(pk[j]);
		}
	}
	if (f->bad_len || f->bad_seq || f->bad_payload || f->bad_segs)
		return -EIO;
	if (f->received != f->count)
		return seterr(-ETIMEDOUT, "port %u -> %u: %" PRIu64 " of %u frames of %u bytes "
			      "arrived (%" PRIu64 " sent; the sender's pool was empty %" PRIu64
			      " times, %u mbufs free)", f->tx_port, f->rx_port, f->received,
			      f->count, f->len, f->sent, f->no_mbuf, gvh_pool_avail(f->tx_mp));
	return 0;
}
