/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pmd_harness.h - a gvirtio port and DPDK's vhost-user back-end
 * (net_vhost) in one process, for tests and demos: EAL once, a socket
 * directory, private mbuf pools, a port pair on one socket, checked
 * traffic one way, counters, teardown.
 *
 * No cmocka here: every call returns 0 or a negative errno and leaves a
 * message in gvh_error(). Link with the PMD (gv_pmd_dep) and DPDK's
 * librte_net_vhost (gvh_vhost_features(), gvh_vhost_ring_size() use its
 * rte_eth_vhost_get_vid_from_port_id()); net_vhost itself registers from
 * DPDK's plugin directory (same library file, loaded once).
 * Single-threaded use (one lcore): net_vhost does its data work inside
 * the bursts the caller makes; the vhost-user messages are handled by
 * the vhost library's own thread.
 */
#ifndef GV_PMD_HARNESS_H
#define GV_PMD_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define GVH_NO_PORT UINT16_MAX
#define GVH_MAX_FRAME 16384 /* largest frame gvh_pkt_alloc() builds */
#define GVH_HDR_LEN 22 /* Ethernet header + 8-byte sequence number */

/* The last error, as text. */
const char *gvh_error(void);

/*
 * EAL with the test settings: --no-huge -m 512 --no-pci --no-telemetry
 * --file-prefix=<prefix>_<pid> -l 0 and the given --log-level options
 * (NULL-terminated, may be NULL). Once per process; later calls return 0.
 */
int gvh_eal_init(const char *prefix, const char *const *log_levels);

/* EAL with the caller's arguments (a demo's argv); returns what rte_eal_init returns. */
int gvh_eal_init_args(int argc, char **argv);

/* The directory (mkdtemp under /tmp) for the sockets; NULL on failure. */
const char *gvh_sock_dir(void);

/* Remove the socket directory (and sockets left in it), clean up EAL. */
void gvh_cleanup(void);

/* A pool of n mbufs of 2 KB data room, no per-lcore cache (exact counts). */
struct rte_mempool *gvh_pool(unsigned int n);
/* Every mbuf is back in the pool. */
bool gvh_pool_full(const struct rte_mempool *mp);
unsigned int gvh_pool_avail(const struct rte_mempool *mp);

/* How a port is configured (both kinds). Zeroes are defaults. */
struct gvh_port_conf {
	uint16_t nb_desc; /* ring size; 0: the driver's default (gvirtio: queue_size=) */
	uint16_t mtu; /* 0: leave the default (1500) */
	uint64_t rx_offloads, tx_offloads;
	struct rte_mempool *mp; /* RX pool (required) */
	uint16_t nb_queues; /* queue pairs; 0: 1 (net_vhost: also its queues= devarg) */
	const char *vh_devargs; /* gvh_vhost_add only: more net_vhost devargs, e.g. "tso=1" */
	bool intr_lsc, intr_rxq; /* rte_eth_conf.intr_conf.lsc / .rxq */
};

/* rte_eth_dev_configure (nb_queues pairs), MTU, RX and TX queue set-up. */
int gvh_port_setup(uint16_t port, const struct gvh_port_conf *c);

/* A gvirtio port and a net_vhost port on the same socket. */
struct gvh_pair {
	unsigned int idx; /* unique in the process */
	char sock[108];
	char vh_name[32], gv_name[40];
	uint16_t vh, gv; /* port ids, GVH_NO_PORT when absent */
};

/* Names and socket path for a new pair; no ports yet. */
void gvh_pair_init(struct gvh_pair *p);

/*
 * The back-end: probe net_vhost<idx> (client=0: it listens; client=1: it
 * connects to a gvirtio server, retrying every second) and set it up
 * (its socket exists once configured).
 */
int gvh_vhost_add(struct gvh_pair *p, bool client, const struct gvh_port_conf *c);

/*
 * The gvirtio port: probe net_gvirtio_user<idx>,path=<sock>[,devargs]
 * and set it up. devargs may be NULL or "".
 */
int gvh_gv_add(struct gvh_pair *p, const char *devargs, const struct gvh_port_conf *c);

/* Start both (back-end first) and wait for both links (bounded). */
int gvh_pair_start(struct gvh_pair *p, double timeout_s);

/* Poll the link of a port until it is `up` (or down) or the time is out. */
int gvh_wait_link(uint16_t port, bool up, double timeout_s);

/* Link status change events of a port, counted by the link state the
 * callback reads (the callback runs on EAL's interrupt thread). */
struct gvh_lsc {
	int up, down; /* read them with gvh_count() or gvh_wait_count() */
};

/* Count the port's LSC events into *c (zeroed here) / stop counting. */
int gvh_lsc_watch(uint16_t port, struct gvh_lsc *c);
void gvh_lsc_unwatch(uint16_t port, struct gvh_lsc *c);

/* A counter another thread raises (acquire load). */
int gvh_count(const int *counter);

/* Poll a counter another thread raises until it reaches `want` or the
 * time is out (-ETIMEDOUT, naming `what`). */
int gvh_wait_count(const int *counter, int want, double timeout_s, const char *what);

/*
 * Hot-unplug the port's device (rte_dev_remove: the driver stops and
 * closes a running port); *port = GVH_NO_PORT.
 */
int gvh_port_remove(uint16_t *port);

/* Remove gvirtio (its rings stop while the back-end answers), then the back-end. */
void gvh_pair_destroy(struct gvh_pair *p);

/*
 * The virtio features the back-end negotiated with the gvirtio port
 * (read on the vhost side: independent of what the PMD reports).
 */
int gvh_vhost_features(uint16_t vh_port, uint64_t *features);

/* The size of a vring as the back-end runs it (0 RX of the guest, 1 TX). */
int gvh_vhost_ring_size(uint16_t vh_port, uint16_t vring, uint16_t *size);

/* One xstat by name. */
int gvh_xstat(uint16_t port, const char *name, uint64_t *value);

/* ------------------------------------------------------------ traffic -- */

/*
 * A frame of `len` bytes (GVH_HDR_LEN..GVH_MAX_FRAME) carrying `seq` and a
 * pattern derived from it, chained over as many mbufs of `mp` as it needs.
 * NULL if the pool is short.
 */
struct rte_mbuf *gvh_pkt_alloc(struct rte_mempool *mp, uint64_t seq, uint32_t len);

/* A chain of mbufs from `mp` holding f[0..len) (as many as it needs, the
 * first one full); NULL if the pool is short. */
struct rte_mbuf *gvh_mbuf_copy(struct rte_mempool *mp, const uint8_t *f, uint32_t len);

/* Is `m` the frame gvh_pkt_alloc(seq, len) built? 0, or a negative code:
 * -1 length, -2 sequence, -3 payload, -4 segment lengths. */
int gvh_pkt_check(const struct rte_mbuf *m, uint64_t seq, uint32_t len);

/* Send `count` frames from one port to another, checking each on arrival. */
struct gvh_flow {
	/* in */
	uint16_t tx_port, rx_port;
	struct rte_mempool *tx_mp; /* the sender's frames come from here */
	uint32_t len;
	uint32_t count;
	uint64_t seq0; /* first sequence number */
	double timeout_s; /* 0: 10 s */
	/* out */
	uint64_t sent, received, rx_bytes;
	uint64_t bad_len, bad_seq, bad_payload, bad_segs;
	uint16_t max_segs; /* most segments seen in one received frame */
	uint64_t no_mbuf; /* rounds the sender's pool could not give a frame */
};

/*
 * 0 if every frame arrived, in order, intact, and nothing more; else
 * -EIO (bad frames) or -ETIMEDOUT, with the counts in `f`.
 */
int gvh_transfer(struct gvh_flow *f);

/* Seconds on the timer. */
double gvh_now(void);

#endif /* GV_PMD_HARNESS_H */
