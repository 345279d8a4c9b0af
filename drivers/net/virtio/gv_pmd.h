/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pmd.h - the PMD's shared state: the port (struct gv_hw), its RX and
 * TX queues, per-queue counters, the path identifiers, and logging. The
 * ring itself is the core's (common/ring); the device is reached through
 * the transport ops (gv_transport.h).
 */
#ifndef GV_PMD_H
#define GV_PMD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>

#include "gv_features.h"
#include "gv_transport.h"
#include "gv_vq.h"

extern int gv_logtype;
#define GV_LOG(level, fmt, ...)                                                \
	rte_log(RTE_LOG_##level, gv_logtype, "gvirtio: " fmt "\n", ##__VA_ARGS__)

#define GV_BURST_MAX 64 /* packets handled per inner batch */
#define GV_DEFAULT_QUEUE_SIZE 256
#define GV_MAX_QUEUE_PAIRS 128
#define GV_MAX_MRG_BUFS 64 /* num_buffers accepted for one packet */
#define GV_MAX_TX_SEGS 64
#define GV_MAX_MAC_ADDRS 32 /* primary + unicast table */
#define GV_MAX_MC_ADDRS 64

/* The RX and TX paths; chosen per port by gv_path_select(). */
enum gv_rx_path {
	GV_RX_SIMPLE, /* one buffer per packet, no offloads */
	GV_RX_MRG, /* mergeable buffers: packets span num_buffers mbufs */
	GV_RX_FULL, /* chains of mbufs per packet, offloads, no MRG_RXBUF */
	GV_RX_VEC_SSE, /* simple on a fixed ring, SSE4.2 (gv_rx_vec*.c) */
	GV_RX_VEC_AVX2, /* the same, AVX2 */
	GV_RX_PATH_MAX,
};

enum gv_tx_path {
	GV_TX_SIMPLE, /* one descriptor per packet, header in headroom */
	GV_TX_INORDER, /* simple, reclaiming in order without reading entries */
	GV_TX_FULL, /* multi-segment, indirect, offloads */
	GV_TX_VEC_SSE, /* in-order on a fixed ring, SSE4.2 (gv_tx_vec.c) */
	GV_TX_PATH_MAX,
};

/* What a forced-path devarg asks for (datapath=). */
enum gv_force_path {
	GV_FORCE_NONE,
	GV_FORCE_SIMPLE,
	GV_FORCE_INORDER,
	GV_FORCE_FULL,
};

/*
 * vectorized=: the vector RX paths (gv_rx_vec.c). AUTO (no devarg): where
 * eligible and IN_ORDER is negotiated (the device then uses buffers in
 * the order they were made available, which the fixed ring relies on for
 * its speed); ON: where eligible, in order or not.
 */
enum gv_vec_mode { GV_VEC_AUTO, GV_VEC_OFF, GV_VEC_ON };

/*
 * rx_hdr_line=: where an RX buffer's virtio-net header sits against the
 * frame (gv_rxtx.h gv_rx_front). AUTO (no devarg): SHARED with
 * mergeable buffers, OWN without.
 */
enum gv_rx_hdr { GV_RX_HDR_AUTO, GV_RX_HDR_SHARED, GV_RX_HDR_OWN };

const char *gv_rx_path_name(enum gv_rx_path p);
/* The RX offloads a path can do (gv_path.c's table). */
uint64_t gv_rx_path_offloads(enum gv_rx_path p);
const char *gv_tx_path_name(enum gv_tx_path p);

#define GV_SIZE_BINS 8

struct gv_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t multicast;
	uint64_t broadcast;
	uint64_t size_bins[GV_SIZE_BINS]; /* <64,64,65-127,128-255,256-511,512-1023,1024-1518,>1518 */
	uint64_t kicks;
};

/*
 * Who owns a queue's ring: the datapath holds it for the length of one
 * burst (busy); the control path pauses it (paused) to stop or reset the
 * ring under a running port (a back-end that came back). The handoff is
 * a Dekker pair: each side stores its own word, orders the store before
 * its load of the other's, and backs off if the other's word is set.
 * The datapath's side of that ordering costs nothing: the control path
 * forces it on every thread of the process with membarrier(2) (the
 * pattern of userspace RCU). Where membarrier cannot be used, the
 * datapath fences itself (gv_q_self_fence; a locked instruction per burst).
 */

/* The part common to RX and TX queues. */
struct gv_queue {
	uint32_t busy; /* written by the datapath only; first: the burst touches it first */
	uint32_t paused; /* GV_Q_HELD | GV_Q_STOPPED; written by the control path only */
	struct gv_vq *vq; /* core state, rte_malloc'd */
	const struct rte_memzone *mz; /* ring (+ indirect tables) */
	struct gv_hw *hw;
	uint16_t vq_idx; /* virtqueue index: RX 2i, TX 2i+1 */
	uint16_t size;
	uint16_t queue_id; /* ethdev queue id */
	int kickfd; /* transport-owned notification fds, -1 if unused */
	int callfd;
	bool broken_logged;
	bool deferred; /* {rx,tx}_deferred_start: left stopped by the port's start */
	struct gv_qstats st;
};

struct gv_rxq {
	struct gv_queue q;
	struct rte_mempool *mp;
	uint16_t port_id;
	uint16_t hdr_size;
	uint16_t chain_len; /* GV_RX_FULL: mbufs per posted chain */
	uint32_t addr_off; /* offset of buf_addr or buf_iova in the mbuf */
	uint32_t refill_want; /* the app's rx_free_thresh, or ours */
	uint32_t refill_thresh; /* in effect since start (gv_path.c gv_rx_refill_point) */
	bool ol_any; /* any of the below: gv_rx_offload() per packet */
	bool ol_csum, ol_lro, ol_vlan_strip, ol_rss_hash;
	uint64_t nombuf;
	/* One-mbuf paths (gv_rxq_refill): a returned mbuf's rearm_data and
	 * ol_flags, and the bytes posted per buffer. */
	uint64_t mbuf_rearm;
	uint64_t mbuf_ol;
	uint32_t seg_len;
	uint16_t front; /* where a buffer starts in its mbuf (gv_rxtx.h gv_rx_front) */
	/* MRG_RXBUF negotiated (the vector paths: a buffer the device filled
	 * may be the first of several, gv_rx_vec.h vec_one). */
	bool mrg;
	/* MRG_RXBUF: the packet being assembled across bursts (gv_rx_mrg_add). */
	struct rte_mbuf *mrg_head, *mrg_tail;
	uint16_t mrg_left;
	/* GV_RX_FULL: mbufs a short packet left unused, reused at refill. */
	uint16_t n_spare;
	struct rte_mbuf *spare[GV_BURST_MAX * 4];
};

/* ol_any from the per-offload flags (start, and the runtime VLAN switch). */
static inline void gv_rxq_ol_sum(struct gv_rxq *rxq)
{
	rxq->ol_any = rxq->ol_csum || rxq->ol_lro || rxq->ol_vlan_strip || rxq->ol_rss_hash;
}

struct gv_txq {
	struct gv_queue q;
	uint16_t hdr_size;
	uint32_t addr_off;
	uint32_t free_thresh;
	bool in_order; /* VIRTIO_F_IN_ORDER negotiated */
	bool indirect; /* RING_INDIRECT_DESC negotiated */
	bool csum; /* CSUM negotiated */
	bool tso; /* HOST_TSO4/6 negotiated */
};

#define GV_RSS_KEY_MAX 52
#define GV_RSS_RETA_MAX 512

/* RSS as the device does it (gv_rss.c). */
struct gv_rss {
	bool usable; /* the device offers RSS with sane limits */
	bool enabled; /* the app asked for it (mq_mode RSS) */
	uint8_t key_size;
	uint16_t reta_size;
	uint32_t supported; /* hash types the device can do */
	uint32_t types; /* hash types in use */
	uint8_t key[GV_RSS_KEY_MAX];
	uint16_t reta[GV_RSS_RETA_MAX];
};

/* The port. */
struct gv_hw {
	enum gv_tp_id tp_id; /* the transport: gv_ops() */
	void *tp; /* transport private (in shared memory) */
	uint16_t port_id;
	char name[64];

	/* devargs / transport settings */
	uint16_t req_queue_pairs; /* queues= (max the device is asked for) */
	uint16_t queue_size; /* queue_size= */
	bool want_packed, want_mrg, want_in_order;
	enum gv_force_path force_path;
	enum gv_vec_mode vec_mode; /* vectorized= */
	enum gv_rx_hdr rx_hdr; /* rx_hdr_line= */
	bool force_mandatory; /* barrier=mandatory */
	uint32_t speed; /* speed= in Mbps, 0: unknown */
	bool use_va; /* descriptors carry virtual addresses (vhost-user) */

	/* negotiated */
	uint64_t host_features;
	uint64_t features;
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint16_t hdr_size;
	uint16_t max_queue_pairs;
	uint16_t desc_max; /* the largest ring the device takes (queue 0) */
	uint16_t max_mtu;
	struct rte_ether_addr mac;
	bool mac_from_app; /* set by rte_eth_dev_default_mac_addr_set: keep it */
	bool negotiated;
	bool started;
	/*
	 * Serialises start/stop/configure/close with the transport's
	 * interrupt-thread work (a returning back-end), which only try-locks.
	 */
	pthread_mutex_t ctl_lock;
	uint16_t nb_rxq_conf, nb_txq_conf; /* queue counts of the last configure */

	enum gv_rx_path rx_path;
	enum gv_tx_path tx_path;

	struct gv_ctrlq *cvq; /* control queue (gv_ctrl.c), NULL if none */
	struct gv_rss rss;
	struct rte_ether_addr mc[GV_MAX_MC_ADDRS]; /* multicast list */
	uint32_t n_mc;
};

/* This process's ops of the port's transport (NULL once released). */
static inline const struct gv_transport_ops *gv_ops(const struct gv_hw *hw)
{
	return gv_tp_table[hw->tp_id];
}

/* Give the port its transport: the id in the port, the ops in this process's table. */
static inline void gv_set_transport(struct gv_hw *hw, enum gv_tp_id id,
				    const struct gv_transport_ops *ops)
{
	gv_tp_table[id] = ops;
	hw->tp_id = id;
}

static inline bool gv_has(const struct gv_hw *hw, unsigned int bit)
{
	return (hw->features & GV_BIT(bit)) != 0;
}

/* The RX header shares the frame's first line (rx_hdr_line=, gv_rxtx.h gv_rx_front). */
static inline bool gv_rx_hdr_shared(const struct gv_hw *hw)
{
	return hw->rx_hdr == GV_RX_HDR_AUTO ? gv_has(hw, GV_NET_F_MRG_RXBUF)
					    : hw->rx_hdr == GV_RX_HDR_SHARED;
}

/* True when membarrier(2) is not available: bursts fence themselves (gv_rxtx.c). */
extern bool gv_q_self_fence;

/*
 * Datapath: take the queue for one burst; false if the control path has
 * it. One lcore per queue at a time (ethdev's rule for bursts).
 */
static inline bool gv_queue_enter(struct gv_queue *q)
{
	__atomic_store_n(&q->busy, 1, __ATOMIC_RELAXED);
	/*
	 * busy before paused: the control path's membarrier makes the CPU
	 * keep that order, so only the compiler has to be told here.
	 */
	if (unlikely(__atomic_load_n(&gv_q_self_fence, __ATOMIC_RELAXED)))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Acquire: the ring as the control path left it when it resumed the queue. */
	if (unlikely(__atomic_load_n(&q->paused, __ATOMIC_ACQUIRE))) {
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

static inline void gv_queue_exit(struct gv_queue *q)
{
	/* Release: the burst's ring accesses are done before the control path sees it idle. */
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
}

/*
 * Why a queue's bursts back off (gv_queue.paused): the control path holds
 * the ring (port stop, a back-end that came back, NEEDS_RESET), or the
 * app stopped the queue (rx/tx_queue_stop, deferred start). Independent:
 * a resume after a ring restart leaves a queue the app stopped stopped.
 */
#define GV_Q_HELD 1u
#define GV_Q_STOPPED 2u

/* Control path: wait for the current burst to end, then hold the queue. */
void gv_queue_pause(struct gv_queue *q);
void gv_queue_resume(struct gv_queue *q);
/* eth_dev_ops {rx,tx}_queue_{start,stop} (ethdev checked the port is started). */
struct rte_eth_dev;
int gv_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int gv_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int gv_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int gv_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
/* At the port's start: every queue started but those set up for deferred start. */
void gv_queues_start_states(struct rte_eth_dev *dev);
/* RX (rx) or TX queue i's common part, NULL if it is not set up. */
struct gv_queue *gv_queue_of(struct rte_eth_dev *dev, bool rx, uint16_t i);

/* gv_rxtx.c */
uint16_t gv_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t gv_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);
typedef uint16_t (*gv_burst_fn)(void *q, struct rte_mbuf **pkts, uint16_t n);
gv_burst_fn gv_rx_fn(const struct gv_hw *hw, enum gv_rx_path p);
gv_burst_fn gv_tx_fn(const struct gv_hw *hw, enum gv_tx_path p);
/* 0, or the error (logged) that leaves the queue without buffers: the start fails. */
int gv_rxq_refill(struct gv_rxq *rxq);
/* Send on a queue the caller already holds (gv_queue_pause). */
uint16_t gv_tx_owned(const struct gv_hw *hw, struct gv_txq *txq, struct rte_mbuf **pkts,
		     uint16_t n);
void gv_rxq_drain(struct gv_rxq *rxq);
void gv_txq_drain(struct gv_txq *txq);
/* rte_eth_tx_done_cleanup: sent packets' mbufs back, up to free_cnt (0: all). */
int gv_tx_done_cleanup(void *txq, uint32_t free_cnt);

/* gv_rx_vec.c: the vector RX paths (one mbuf per packet; packed: gv_rx_vec_packed.c). */
static inline bool gv_rx_path_vec(enum gv_rx_path p)
{
	return p == GV_RX_VEC_SSE || p == GV_RX_VEC_AVX2;
}
/* This CPU and EAL's SIMD limit (--force-max-simd-bitwidth) allow path p. */
bool gv_rx_vec_usable(enum gv_rx_path p);
gv_burst_fn gv_rx_vec_fn(const struct gv_hw *hw, enum gv_rx_path p);
/* Fixed-ring mode and the first buffers (port start, restart): 0 or its error. */
int gv_rxq_refill_vec(struct gv_rxq *rxq);

/* gv_tx_vec.c: the vector TX path (a ring in the core's TX fixed mode, IN_ORDER). */
static inline bool gv_tx_path_vec(enum gv_tx_path p)
{
	return p == GV_TX_VEC_SSE;
}
bool gv_tx_vec_usable(enum gv_tx_path p);
gv_burst_fn gv_tx_vec_fn(const struct gv_hw *hw, enum gv_tx_path p);
/* The ring into TX fixed mode (port start, restart): 0 or its error (logged). */
int gv_txq_start_vec(struct gv_txq *txq);
/* gv_tx_owned and gv_tx_done_cleanup on a queue of the vector path. */
uint16_t gv_tx_vec_owned(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n);
uint32_t gv_tx_vec_cleanup(struct gv_txq *txq, uint32_t max);

/* gv_monitor.c: rte_eth_get_monitor_addr, the word an RX queue's next packet writes. */
struct rte_power_monitor_cond;
int gv_get_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc);

/* gv_path.c */
/*
 * Choose hw->rx_path / hw->tx_path from the negotiated features, the
 * offloads the app enabled, the largest frame to receive (header
 * included) and the smallest RX mbuf data room. -ENOTSUP when a forced
 * path (datapath=) cannot serve this configuration.
 */
int gv_path_select(struct gv_hw *hw, uint64_t rx_offloads, uint64_t tx_offloads,
		   uint32_t max_rx_frame, uint32_t mbuf_room);
/* ethdev's burst mode queries: the port's path names ("vectorized (AVX2)"). */
struct rte_eth_dev;
struct rte_eth_burst_mode;
int gv_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode);
int gv_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode);
/* ethdev's queue info queries: ring size, pool, thresholds, offloads. */
struct rte_eth_rxq_info;
struct rte_eth_txq_info;
void gv_rxq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_rxq_info *qinfo);
void gv_txq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_txq_info *qinfo);
/* {rx,tx}_free_thresh checked (less than the ring), 0 turned into ours. */
int gv_queue_thresh(const struct gv_hw *hw, const char *dir, uint16_t qid, uint16_t want,
		    uint16_t size, uint32_t *thresh);
/* The RX refill point a start puts in effect (capped on mergeable buffers). */
uint32_t gv_rx_refill_point(const struct gv_hw *hw, const struct gv_rxq *rxq, uint16_t qid,
			    uint32_t max_pkt, uint32_t room);

/* gv_ethdev.c */
struct rte_eth_dev;
struct rte_eth_dev_info;
int gv_ethdev_init(struct rte_eth_dev *dev, struct gv_hw *hw);
int gv_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
/* The port is one of this PMD's, driven by this (primary) process. */
bool gv_is_port(const struct rte_eth_dev *dev);

/* gv_secondary.c: the port in a secondary process (its transport's ops installed). */
/* Secondary ops and bursts (datapath: RX/TX from this process is possible). */
int gv_secondary_attach(struct rte_eth_dev *dev, bool datapath);
/* The port let go of in this process only. */
int gv_secondary_remove(struct rte_eth_dev *dev);
/* Ring, core state and indirect tables of one virtqueue. */
int gv_queue_alloc(struct rte_eth_dev *dev, struct gv_queue *q, uint16_t vq_idx,
		   uint16_t queue_id, uint16_t nb_desc, unsigned int socket, uint16_t max_ind);
void gv_queue_free(struct gv_queue *q);
/* gv_link.c: re-read link state (device there, config status) into ethdev. */
int gv_link_refresh(struct rte_eth_dev *dev);
/*
 * The device's config changed (a config interrupt, or a transport that
 * knows): link events, and the announcement GUEST_ANNOUNCE asks for.
 */
void gv_config_changed(struct rte_eth_dev *dev);
/*
 * The device came back (a new vhost-user back-end) while the port runs:
 * pause the queues, give back every mbuf, reset the rings, hand them to
 * the device again, refill, resume, and report the link. The caller holds
 * hw->ctl_lock.
 */
int gv_port_rings_restart(struct rte_eth_dev *dev);
/*
 * The device set DEVICE_NEEDS_RESET (a config change said so): every
 * queue is paused after its current burst (bursts return 0 and leave the
 * rings alone), the link is refreshed (down) with its LSC event. The
 * caller raises RTE_ETH_EVENT_INTR_RESET; the application recovers with
 * rte_eth_dev_reset() and a new configure, queue set-up and start.
 */
void gv_port_needs_reset(struct rte_eth_dev *dev);

#endif /* GV_PMD_H */
