/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pmd_ipp.c - the per-packet cost of a virtio PMD's burst functions,
 * deterministic enough to count instructions (bench/ipp.sh runs it under
 * callgrind). One process, one thread: the PMD under test (gvirtio's
 * net_gvirtio_user, linked in, or DPDK's net_virtio_user from DPDK's
 * plugin directory) and DPDK's vhost-user back-end (net_vhost) on the
 * same socket. The back-end's work happens between the driver's bursts,
 * so every driver burst is a full one (checked), and only the driver's
 * bursts are counted: they are made through bench_rx()/bench_tx(), which
 * callgrind toggles collection on (--toggle-collect); warm-up bursts go
 * through other functions.
 *
 *   gv_pmd_ipp DRV LAYOUT MRG PATH DIR [BURST [SIZE [ITERS [RING]]]]
 *     DRV     gv | dpdk
 *     LAYOUT  split | packed
 *     MRG     0 | 1           mergeable RX buffers
 *     PATH    simple | inorder | full | vec   (as bench/pmd_compare.sh:
 *             gvirtio datapath=PATH, vec = gvirtio vectorized=1 (else 0); DPDK
 *             in_order=1 for inorder, 0 for simple/full, vectorized=1
 *             for vec)
 *     DIR     rx (guest RX: the back-end sends, the driver receives)
 *             tx (guest TX: the driver sends, the back-end receives)
 *     BURST   packets per driver burst (32), SIZE frame bytes (64),
 *     ITERS   measured bursts (2000), RING descriptors per ring (256)
 * Prints one line: key=value pairs (packets, bursts, short bursts, the
 * paths gvirtio chose). Exit status 1 when a burst was short or packets
 * went missing.
 *
 * GV_IPP_TSC=1: native timing instead of instruction counts (for code
 * valgrind cannot run, such as DPDK's AVX-512 packed RX path): the TSC is read around each
 * measured driver burst, and tsc_per_pkt= is the median over blocks of
 * GV_IPP_TSC_BLOCK (100) bursts of the block's cycles per packet
 * (tsc_blocks= how many). Only ratios of runs side by side mean
 * anything on a shared machine. GV_IPP_SIMD=N: EAL's SIMD limit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_cycles.h>
#include <rte_vect.h>

#include "gv_pmd_harness.h"

#define MAX_BURST 64
#define WARM_BURSTS 200

/*
 * Named burst calls, each its own out-of-line function so callgrind can
 * collect inside exactly one kind (--toggle-collect=NAME, bench/ipp.sh).
 */
#define IPP_BURST_FN(name, burst)                                                  \
	__attribute__((noinline, noclone)) uint16_t name(uint16_t port, struct rte_mbuf **p, \
							 uint16_t n);                      \
	uint16_t name(uint16_t port, struct rte_mbuf **p, uint16_t n)              \
	{                                                                          \
		return burst(port, 0, p, n);                                       \
	}

/* The driver's measured bursts (SIDE=driver, the default). */
IPP_BURST_FN(bench_rx, rte_eth_rx_burst)
IPP_BURST_FN(bench_tx, rte_eth_tx_burst)
/*
 * The back-end's bursts in the measured rounds (SIDE=backend): what each
 * driver's ring costs the vhost-user back-end per packet.
 */
IPP_BURST_FN(backend_rx, rte_eth_rx_burst)
IPP_BURST_FN(backend_tx, rte_eth_tx_burst)
/* An RX poll that finds nothing (SIDE=idle). */
IPP_BURST_FN(bench_idle, rte_eth_rx_burst)

/* Warm-up bursts: the same, not collected. */
static __attribute__((noinline)) uint16_t warm_rx(uint16_t port, struct rte_mbuf **p, uint16_t n)
{
	return rte_eth_rx_burst(port, 0, p, n);
}

static __attribute__((noinline)) uint16_t warm_tx(uint16_t port, struct rte_mbuf **p, uint16_t n)
{
	return rte_eth_tx_burst(port, 0, p, n);
}

struct opts {
	bool gv, packed, mrg, rx;
	const char *path;
	unsigned int burst, size, iters, ring;
};

static int usage(void)
{
	fprintf(stderr, "usage: gv_pmd_ipp gv|dpdk split|packed 0|1 simple|inorder|full|vec "
			"rx|tx [BURST [SIZE [ITERS [RING]]]]\n");
	return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
	if (argc < 6)
		return -1;
	memset(o, 0, sizeof(*o));
	o->gv = !strcmp(argv[1], "gv");
	o->packed = !strcmp(argv[2], "packed");
	o->mrg = !strcmp(argv[3], "1");
	o->path = argv[4];
	o->rx = !strcmp(argv[5], "rx");
	o->burst = argc > 6 ? (unsigned int)atoi(argv[6]) : 32;
	o->size = argc > 7 ? (unsigned int)atoi(argv[7]) : 64;
	o->iters = argc > 8 ? (unsigned int)atoi(argv[8]) : 2000;
	o->ring = argc > 9 ? (unsigned int)atoi(argv[9]) : 256;
	if ((!o->gv && strcmp(argv[1], "dpdk")) || (!o->packed && strcmp(argv[2], "split")) ||
	    (!o->rx && strcmp(argv[5], "tx")) || o->burst == 0 || o->burst > MAX_BURST ||
	    o->size < 60 || o->size > 1518 || o->iters == 0 || o->ring < 64 || o->ring > 4096 ||
	    (strcmp(o->path, "simple") && strcmp(o->path, "inorder") && strcmp(o->path, "full") &&
	     strcmp(o->path, "vec")))
		return -1;
	return 0;
}

/* The driver's devargs, as bench/pmd_compare.sh gives them. */
static void devargs(const struct opts *o, char *buf, size_t len)
{
	int n = snprintf(buf, len, "packed_vq=%d,mrg_rxbuf=%d,queue_size=%u", o->packed, o->mrg,
			 o->ring);

	if (o->gv) {
		if (strcmp(o->path, "vec"))
			snprintf(buf + n, len - (size_t)n, ",datapath=%s,vectorized=0", o->path);
		else
			snprintf(buf + n, len - (size_t)n, ",vectorized=1");
	} else {
		bool in_order = !strcmp(o->path, "inorder") || (!strcmp(o->path, "vec") && o->packed);

		snprintf(buf + n, len - (size_t)n, ",in_order=%d%s", in_order,
			 strcmp(o->path, "vec") ? "" : ",vectorized=1");
	}
}

static int dpdk_add(struct gvh_pair *p, const char *args, const struct gvh_port_conf *c)
{
	char full[512], name[40];
	int ret;

	snprintf(name, sizeof(name), "net_virtio_user%u", p->idx);
	snprintf(full, sizeof(full), "%s,path=%s,%s", name, p->sock, args);
	ret = rte_dev_probe(full);
	if (ret) {
		fprintf(stderr, "probe %s: %s\n", full, strerror(-ret));
		return ret;
	}
	snprintf(p->gv_name, sizeof(p->gv_name), "%s", name);
	ret = rte_eth_dev_get_port_by_name(name, &p->gv);
	if (ret)
		return ret;
	return gvh_port_setup(p->gv, c);
}

static struct rte_mempool *pool(const char *name, unsigned int n)
{
	/* A per-lcore cache, as testpmd's pools have. */
	return rte_pktmbuf_pool_create(name, n, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
}

/* A burst of frames of `size` bytes from `mp`; false if the pool is short. */
static bool frames(struct rte_mempool *mp, struct rte_mbuf **m, unsigned int n, unsigned int size)
{
	static const uint8_t hdr[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xb5 };

	if (rte_pktmbuf_alloc_bulk(mp, m, n))
		return false;
	for (unsigned int i = 0; i < n; i++) {
		char *d = rte_pktmbuf_append(m[i], (uint16_t)size);

		memcpy(d, hdr, sizeof(hdr));
		memset(d + sizeof(hdr), 0x5a, size - sizeof(hdr));
	}
	return true;
}

struct counts {
	uint64_t pkts, bursts, short_bursts;
	uint64_t *tsc; /* GV_IPP_TSC: cycles of each measured driver burst, else NULL */
};

/* A measured driver burst, timed when asked (GV_IPP_TSC). */
#define TIMED(c, call)                                                     \
	({                                                                 \
		const uint64_t t0_ = (c)->tsc ? rte_rdtsc() : 0;           \
		const uint16_t r_ = (call);                                \
									   \
		if ((c)->tsc)                                              \
			(c)->tsc[(c)->bursts] = rte_rdtsc() - t0_;         \
		r_;                                                        \
	})

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median over blocks of `block` bursts of cycles per packet (all bursts full). */
static double tsc_median(const uint64_t *tsc, uint64_t bursts, unsigned int burst,
			 unsigned int block, unsigned int *nblocks)
{
	const unsigned int n = (unsigned int)(bursts / block);
	double *v = calloc(n ? n : 1, sizeof(*v)), med;

	if (!v || n == 0) {
		free(v);
		*nblocks = 0;
		return 0;
	}
	for (unsigned int b = 0; b < n; b++) {
		uint64_t sum = 0;

		for (unsigned int i = 0; i < block; i++)
			sum += tsc[(uint64_t)b * block + i];
		v[b] = (double)sum / ((double)block * burst);
	}
	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	*nblocks = n;
	return med;
}

/* Guest RX: the back-end sends a burst, the driver receives it. */
static int rx_round(const struct opts *o, const struct gvh_pair *p, struct rte_mempool *vmp,
		    bool measured, struct counts *c)
{
	struct rte_mbuf *m[MAX_BURST];
	uint16_t sent, got;

	if (!frames(vmp, m, o->burst, o->size))
		return -ENOMEM;
	sent = measured ? backend_tx(p->vh, m, (uint16_t)o->burst) :
			  warm_tx(p->vh, m, (uint16_t)o->burst);
	if (sent < o->burst)
		rte_pktmbuf_free_bulk(m + sent, o->burst - sent);
	got = measured ? TIMED(c, bench_rx(p->gv, m, (uint16_t)o->burst))
		       : warm_rx(p->gv, m, (uint16_t)o->burst);
	rte_pktmbuf_free_bulk(m, got);
	if (measured) {
		c->pkts += got;
		c->bursts++;
		c->short_bursts += got < o->burst;
	}
	return sent == got ? 0 : -EIO;
}

/* Guest TX: the driver sends a burst, the back-end takes it. */
static int tx_round(const struct opts *o, const struct gvh_pair *p, struct rte_mempool *gmp,
		    bool measured, struct counts *c)
{
	struct rte_mbuf *m[MAX_BURST];
	uint16_t sent, got, total = 0;

	if (!frames(gmp, m, o->burst, o->size))
		return -ENOMEM;
	sent = measured ? TIMED(c, bench_tx(p->gv, m, (uint16_t)o->burst))
			: warm_tx(p->gv, m, (uint16_t)o->burst);
	if (sent < o->burst)
		rte_pktmbuf_free_bulk(m + sent, o->burst - sent);
	do {
		got = measured ? backend_rx(p->vh, m, MAX_BURST) : warm_rx(p->vh, m, MAX_BURST);
		rte_pktmbuf_free_bulk(m, got);
		total += got;
	} while (got);
	if (measured) {
		c->pkts += sent;
		c->bursts++;
		c->short_bursts += sent < o->burst;
	}
	return total == sent ? 0 : -EIO;
}

static void print_paths(const struct opts *o, uint16_t port)
{
	static const char *const rx[] = { "simple", "mergeable", "full", "vec-sse", "vec-avx2" };
	static const char *const tx[] = { "simple", "inorder", "full", "vec-sse" };
	uint64_t r = UINT64_MAX, t = UINT64_MAX;

	if (!o->gv) {
		printf(" paths=dpdk-log");
		return;
	}
	gvh_xstat(port, "rx_path", &r);
	gvh_xstat(port, "tx_path", &t);
	printf(" rx_path=%s tx_path=%s", r < RTE_DIM(rx) ? rx[r] : "?", t < RTE_DIM(tx) ? tx[t] : "?");
}

int main(int argc, char **argv)
{
	/* DPDK's virtio PMD logs its paths ("virtio: using ... Rx path") at INFO. */
	static const char *const levels[] = { "pmd.net.gvirtio:warning", "lib.vhost.*:error",
					      "pmd.net.virtio.init:info", NULL };
	struct gvh_port_conf gc = { 0 }, vc = { 0 };
	struct counts c = { 0 };
	struct gvh_pair p;
	struct opts o;
	char args[256];
	int ret, bad = 0;
	long idle = 0;

	if (parse(argc, argv, &o))
		return usage();
	if (gvh_eal_init("gvipp", levels)) {
		fprintf(stderr, "EAL: %s\n", gvh_error());
		return 1;
	}
	/*
	 * GV_IPP_SIMD=128: EAL's SIMD limit (gvirtio's SSE body instead of
	 * AVX2); 512: DPDK's packed vectorized RX (AVX-512).
	 */
	if (getenv("GV_IPP_SIMD") && *getenv("GV_IPP_SIMD") &&
	    rte_vect_set_max_simd_bitwidth((uint16_t)atoi(getenv("GV_IPP_SIMD"))) != 0) {
		fprintf(stderr, "cannot set the SIMD limit to %s\n", getenv("GV_IPP_SIMD"));
		return 1;
	}
	/* A full RX ring, a TX ring in flight, bursts and the caches. */
	gc.mp = pool("ipp_guest", 2 * o.ring + 4095);
	vc.mp = pool("ipp_backend", 2 * o.ring + 4095);
	if (!gc.mp || !vc.mp) {
		fprintf(stderr, "pools: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	gc.nb_desc = vc.nb_desc = (uint16_t)o.ring;
	if (getenv("GV_IPP_TSC") && atoi(getenv("GV_IPP_TSC")) == 1 &&
	    (c.tsc = calloc(o.iters, sizeof(*c.tsc))) == NULL)
		return 1;
	gvh_pair_init(&p);
	devargs(&o, args, sizeof(args));
	ret = gvh_vhost_add(&p, false, &vc);
	if (ret == 0)
		ret = o.gv ? gvh_gv_add(&p, args, &gc) : dpdk_add(&p, args, &gc);
	if (ret == 0)
		ret = gvh_pair_start(&p, 20.0);
	if (ret) {
		fprintf(stderr, "set-up (%s): %s\n", args, gvh_error());
		gvh_pair_destroy(&p);
		gvh_cleanup();
		return 1;
	}
	for (unsigned int i = 0; i < WARM_BURSTS + o.iters && bad < 10; i++) {
		bool measured = i >= WARM_BURSTS;

		ret = o.rx ? rx_round(&o, &p, vc.mp, measured, &c) : tx_round(&o, &p, gc.mp, measured, &c);
		bad += ret != 0;
	}
	/* GV_IPP_IDLE=N: then N RX polls with nothing sent (each must find nothing). */
	if (getenv("GV_IPP_IDLE") && bad == 0) {
		struct rte_mbuf *m[MAX_BURST];

		idle = atol(getenv("GV_IPP_IDLE"));
		for (long i = 0; i < idle; i++)
			bad += bench_idle(p.gv, m, (uint16_t)o.burst) != 0;
	}
	printf("drv=%s layout=%s mrg=%d path=%s dir=%s burst=%u size=%u ring=%u args=%s "
	       "pkts=%" PRIu64 " bursts=%" PRIu64 " short=%" PRIu64 " errors=%d",
	       o.gv ? "gv" : "dpdk", o.packed ? "packed" : "split", o.mrg, o.path,
	       o.rx ? "rx" : "tx", o.burst, o.size, o.ring, args, c.pkts, c.bursts,
	       c.short_bursts, bad);
	print_paths(&o, p.gv);
	if (c.tsc) {
		const char *b = getenv("GV_IPP_TSC_BLOCK");
		const unsigned int block = b && atoi(b) > 0 ? (unsigned int)atoi(b) : 100;
		unsigned int nb;
		const double med = tsc_median(c.tsc, c.bursts, o.burst, block, &nb);

		printf(" tsc_per_pkt=%.2f tsc_blocks=%u", med, nb);
	}
	if (idle)
		printf(" idle_polls=%ld", idle);
	printf("\n");
	fflush(stdout);
	if (getenv("GV_IPP_FAST_EXIT")) {
		/*
		 * Under valgrind the teardown (vhost-user stop across the
		 * vhost library's thread) can spin for minutes: bench/ipp.sh
		 * asks for an exit right after the figures (callgrind dumps at
		 * exit) and removes EAL's runtime directory itself.
		 */
		char waker[160];

		unlink(p.sock);
		snprintf(waker, sizeof(waker), "%s/waker.sock", gvh_sock_dir());
		unlink(waker);
		rmdir(gvh_sock_dir());
		_exit(bad || c.short_bursts ? 1 : 0);
	}
	rte_eth_dev_stop(p.gv);
	rte_eth_dev_stop(p.vh);
	gvh_pair_destroy(&p);
	gvh_cleanup();
	return bad || c.short_bursts ? 1 : 0;
}
