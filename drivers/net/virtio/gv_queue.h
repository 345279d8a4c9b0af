/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_queue.h - an RX or TX queue: its state (struct gv_queue, gv_rxq,
 * gv_txq), the handoff between the datapath and the control path
 * (gv_queue_enter/exit against gv_queue_pause/resume), and its life, the
 * same for every path: set-up and release (ethdev's queue ops), start on
 * the port's path, pause and resume, the app's queue start/stop, drain,
 * free (gv_queue.c). What a path runs on a queue is gv_path.h's.
 */
#ifndef GV_QUEUE_H
#define GV_QUEUE_H

#include "gv_pmd.h"

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
	uint32_t refill_thresh; /* in effect since start (gv_queue.c rx_refill_point) */
	bool ol_any; /* any of the below: gv_rx_offload() per packet */
	bool ol_csum, ol_lro, ol_vlan_strip, ol_rss_hash;
	uint64_t nombuf;
	/* One-mbuf paths (gv_queue.c rxq_prepare): a returned mbuf's rearm_data and
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

/* True when membarrier(2) is not available: bursts fence themselves (gv_queue.c). */
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

/* ------------------------------------------------- life (gv_queue.c) -- */

/* Control path: wait for the current burst to end, then hold the queue. */
void gv_queue_pause(struct gv_queue *q);
void gv_queue_resume(struct gv_queue *q);
/* Every queue the port has, RX then TX; fn for each. */
void gv_queues_each(struct rte_eth_dev *dev, void (*fn)(struct gv_queue *q));
/* RX (rx) or TX queue i's common part, NULL if it is not set up. */
struct gv_queue *gv_queue_of(struct rte_eth_dev *dev, bool rx, uint16_t i);

/* Ring, core state and indirect tables of one virtqueue (the control queue's too). */
int gv_queue_alloc(struct rte_eth_dev *dev, struct gv_queue *q, uint16_t vq_idx,
		   uint16_t queue_id, uint16_t nb_desc, unsigned int socket, uint16_t max_ind);
void gv_queue_free(struct gv_queue *q);

/* eth_dev_ops: queue set-up and release. */
struct rte_eth_rxconf;
struct rte_eth_txconf;
int gv_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp);
int gv_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_txconf *conf);
void gv_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
void gv_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid);
/* Smallest RX mbuf data room (after headroom) over the port's queues. */
uint32_t gv_rx_mbuf_room(struct rte_eth_dev *dev);
/*
 * At the port's start, the paths chosen: each queue's settings for them
 * (header size, offloads, chain length, refill point; frame: the largest
 * frame with its header, room: the smallest mbuf data room). 0 or -EINVAL
 * (logged) when a frame needs more mbufs than an RX chain may have.
 */
int gv_queues_configure(struct rte_eth_dev *dev, uint32_t frame, uint32_t room);
/* The refill points again for a new largest frame (an MTU change on a running port). */
void gv_queues_refill_points(struct rte_eth_dev *dev, uint32_t frame, uint32_t room);
/*
 * The rings handed to the device: each queue started on the port's path
 * (RX: its first buffers), device interrupts off. 0, or the error (logged)
 * that fails the start; the caller drains.
 */
int gv_queues_start(struct rte_eth_dev *dev);
/* The device no longer touches the rings: every mbuf back, the rings reset. */
void gv_queues_drain(struct rte_eth_dev *dev);
/* At the port's start: every queue started but those set up for deferred start. */
void gv_queues_start_states(struct rte_eth_dev *dev);

/* eth_dev_ops {rx,tx}_queue_{start,stop} (ethdev checked the port is started). */
int gv_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int gv_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);
int gv_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid);
int gv_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid);

/* Send on a TX queue the caller holds (gv_queue_pause), on the port's path. */
uint16_t gv_tx_owned(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n);
/* rte_eth_tx_done_cleanup: sent packets' mbufs back, up to free_cnt (0: all). */
int gv_tx_done_cleanup(void *txq, uint32_t free_cnt);
/* Log once that the device broke the queue, with the core's counters. */
void gv_queue_broken(struct gv_queue *q, const char *dir);

/* ethdev's queue info queries: ring size, pool, thresholds, offloads. */
struct rte_eth_rxq_info;
struct rte_eth_txq_info;
void gv_rxq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_rxq_info *qinfo);
void gv_txq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_txq_info *qinfo);

/* gv_monitor.c: rte_eth_get_monitor_addr, the word an RX queue's next packet writes. */
struct rte_power_monitor_cond;
int gv_get_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc);

#endif /* GV_QUEUE_H */
