/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_queue.c - the life of a port's RX and TX queues, the same for every
 * path: set-up and release (ring memory, core state, thresholds), the
 * settings a start derives from the chosen paths, the start on the port's
 * path (gv_path.h: the path's start), the handoff between bursts and the
 * control path (pause/resume with membarrier(2)), the app's per-queue
 * start/stop, drain, and ethdev's queue queries. What a path runs on a
 * queue is the path's own file's.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ethdev_driver.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_pause.h>

#include "gv_rxtx.h"

#define GV_RX_INDIRECT 16 /* indirect entries per RX chain (full path) */
#define GV_TX_INDIRECT (GV_MAX_TX_SEGS + 1) /* per TX chain: a header, then every segment */

static struct gv_hw *hw_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* ------------------------------------------------ set-up and release -- */

/*
 * Ring size for a queue: what the app asked, else the devarg, capped by
 * the device's maximum; a device with a fixed size (legacy PCI) gets
 * exactly its own. 0 when the device's number is unusable: no queue (0),
 * or a fixed split size that is not a power of two or beyond the core's
 * limit (the device's register, read once).
 */
static uint16_t queue_size(struct gv_hw *hw, uint16_t vq_idx, uint16_t nb_desc, uint32_t *maxp)
{
	uint32_t size = nb_desc ? nb_desc : hw->queue_size;
	uint32_t max = gv_ops(hw)->queue_max(hw, vq_idx);

	*maxp = max;
	if (max == 0)
		return 0;
	if (gv_ops(hw)->fixed_queue_size) {
		if (max > GV_RING_MAX_NUM ||
		    (hw->layout == GV_LAYOUT_SPLIT && !rte_is_power_of_2(max)))
			return 0;
		return (uint16_t)max;
	}
	if (size < 2)
		size = 2;
	if (hw->layout == GV_LAYOUT_SPLIT)
		size = rte_align32pow2(size);
	if (size > max)
		size = hw->layout == GV_LAYOUT_SPLIT ? rte_align32prevpow2(max) : max;
	return (uint16_t)size;
}

void gv_queue_free(struct gv_queue *q)
{
	rte_memzone_free(q->mz);
	rte_free(q->vq);
	q->mz = NULL;
	q->vq = NULL;
}

/* Ring memory, core state and indirect tables of one queue. */
int gv_queue_alloc(struct rte_eth_dev *dev, struct gv_queue *q, uint16_t vq_idx,
		       uint16_t queue_id, uint16_t nb_desc, unsigned int socket, uint16_t max_ind)
{
	struct gv_hw *hw = hw_of(dev);
	struct gv_vq_config cfg = { 0 };
	char name[RTE_MEMZONE_NAMESIZE];
	size_t ring_bytes, ind_bytes;
	uint32_t max;
	uint16_t size;
	int ret;

	if (!hw->negotiated) {
		GV_LOG(ERR, "%s: queue set-up before configure", hw->name);
		return -EINVAL;
	}
	size = queue_size(hw, vq_idx, nb_desc, &max);
	if (size == 0) {
		if (max == 0)
			GV_LOG(ERR, "%s: queue %u: the device's ring size is 0 (no such queue)",
			       hw->name, vq_idx);
		else
			GV_LOG(ERR, "%s: queue %u: the device's fixed ring size %u is not a power "
			       "of two up to %u", hw->name, vq_idx, max, GV_RING_MAX_NUM);
		return -EINVAL;
	}
	ring_bytes = RTE_ALIGN_CEIL(gv_ring_size(hw->layout, size, 4096), 64);
	ind_bytes = gv_has(hw, GV_F_RING_INDIRECT_DESC) ? (size_t)size * max_ind * 16 : 0;
	snprintf(name, sizeof(name), "gv_p%u_vq%u", dev->data->port_id, vq_idx);
	q->mz = rte_memzone_reserve_aligned(name, ring_bytes + ind_bytes, (int)socket,
					    RTE_MEMZONE_IOVA_CONTIG, 4096);
	q->vq = rte_zmalloc_socket("gv_vq", gv_vq_state_size(hw->layout, size), 64, (int)socket);
	if (!q->mz || !q->vq) {
		GV_LOG(ERR, "%s: no memory for queue %u (%u descriptors)", hw->name, vq_idx, size);
		gv_queue_free(q);
		return -ENOMEM;
	}
	cfg.layout = hw->layout;
	cfg.barrier = hw->barrier;
	cfg.num = size;
	cfg.ring = q->mz->addr;
	cfg.ring_iova = hw->use_va ? (uint64_t)(uintptr_t)q->mz->addr : q->mz->iova;
	cfg.align = gv_has(hw, GV_F_VERSION_1) ? 4 : 4096;
	cfg.features = (gv_has(hw, GV_F_RING_EVENT_IDX) ? GV_VQ_F_EVENT_IDX : 0) |
		       (gv_has(hw, GV_F_IN_ORDER) ? GV_VQ_F_IN_ORDER : 0);
	if (ind_bytes) {
		cfg.features |= GV_VQ_F_INDIRECT;
		cfg.indirect = (uint8_t *)q->mz->addr + ring_bytes;
		cfg.indirect_iova = cfg.ring_iova + ring_bytes;
		cfg.max_indirect = max_ind;
	}
	ret = gv_vq_init(q->vq, &cfg);
	if (ret) {
		GV_LOG(ERR, "%s: queue %u: ring set-up failed: %s", hw->name, vq_idx, strerror(-ret));
		gv_queue_free(q);
		return ret;
	}
	q->hw = hw;
	q->vq_idx = vq_idx;
	q->queue_id = queue_id;
	q->size = size;
	q->kickfd = q->callfd = -1;
	return 0;
}

/*
 * A queue's {rx,tx}_free_thresh: RX refills once that many buffers are
 * free, TX reclaims once fewer descriptors than that are free (DPDK's
 * meanings). 0 asks for ours: a quarter of the ring, at most 32. Less
 * than the ring size, as DPDK's virtio PMD asks.
 */
static int queue_thresh(const struct gv_hw *hw, const char *dir, uint16_t qid, uint16_t want,
			uint16_t size, uint32_t *thresh)
{
	if (want >= size) {
		GV_LOG(ERR, "%s: %s queue %u: %s_free_thresh %u must be less than the ring's %u entries",
		       hw->name, dir, qid, dir, want, size);
		return -EINVAL;
	}
	*thresh = want ? want : RTE_MAX(1u, RTE_MIN(32u, size / 4u));
	return 0;
}

/* Defined with gv_queues_drain below. */
static void queue_drain(struct gv_queue *q);
static void rxq_drain(struct gv_rxq *rxq);

/* A queue's mbufs back to their pools, its ring and state freed, its slot cleared. */
static void queue_release(struct rte_eth_dev *dev, bool rx, uint16_t qid)
{
	void **slot = rx ? &dev->data->rx_queues[qid] : &dev->data->tx_queues[qid];
	struct gv_queue *q = gv_queue_of(dev, rx, qid);

	if (!q)
		return;
	if (rx)
		rxq_drain(*slot);
	else
		queue_drain(q);
	gv_queue_free(q);
	rte_free(*slot);
	*slot = NULL;
}

void gv_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	queue_release(dev, true, qid);
}

void gv_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	queue_release(dev, false, qid);
}

/* Where a descriptor's address comes from in an mbuf: virtual (vhost-user) or IOVA. */
static uint32_t mbuf_addr_off(const struct gv_hw *hw)
{
	return hw->use_va ? offsetof(struct rte_mbuf, buf_addr) : offsetof(struct rte_mbuf, buf_iova);
}

/*
 * A zeroed RX or TX queue of `size` bytes (its struct gv_queue first)
 * with its ring and state for queue pair qid, in place of the one set up
 * there, and its free threshold from the app's (0: the default); NULL and
 * *err on failure.
 */
static void *queue_new(struct rte_eth_dev *dev, size_t size, bool rx, uint16_t qid,
		       uint16_t nb_desc, unsigned int socket, uint32_t want, uint32_t *thresh,
		       int *err)
{
	struct gv_queue *q;

	RTE_BUILD_BUG_ON(offsetof(struct gv_rxq, q) != 0 || offsetof(struct gv_txq, q) != 0);
	queue_release(dev, rx, qid);
	q = rte_zmalloc_socket(rx ? "gv_rxq" : "gv_txq", size, RTE_CACHE_LINE_SIZE, (int)socket);
	*err = -ENOMEM;
	if (!q)
		return NULL;
	*err = gv_queue_alloc(dev, q, (uint16_t)(2 * qid + !rx), qid, nb_desc, socket,
			      rx ? GV_RX_INDIRECT : GV_TX_INDIRECT);
	if (*err == 0) {
		*err = queue_thresh(hw_of(dev), rx ? "rx" : "tx", qid, want, q->size, thresh);
		if (*err == 0)
			return q;
		gv_queue_free(q);
	}
	rte_free(q);
	return NULL;
}

int gv_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp)
{
	struct gv_hw *hw = hw_of(dev);
	struct gv_rxq *rxq;
	uint32_t thresh;
	int ret;

	if (rte_pktmbuf_data_room_size(mp) < RTE_PKTMBUF_HEADROOM + 64) {
		GV_LOG(ERR, "%s: rx queue %u: mbufs of pool %s are too small", hw->name, qid,
		       mp->name);
		return -EINVAL;
	}
	rxq = queue_new(dev, sizeof(*rxq), true, qid, nb_desc, socket,
			conf ? conf->rx_free_thresh : 0, &thresh, &ret);
	if (!rxq)
		return ret;
	rxq->mp = mp;
	rxq->port_id = dev->data->port_id;
	rxq->refill_want = rxq->refill_thresh = thresh;
	rxq->hdr_size = hw->hdr_size;
	rxq->addr_off = mbuf_addr_off(hw);
	rxq->chain_len = 1;
	rxq->q.deferred = conf && conf->rx_deferred_start;
	dev->data->rx_queues[qid] = rxq;
	return 0;
}

int gv_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct gv_hw *hw = hw_of(dev);
	struct gv_txq *txq;
	uint32_t thresh;
	int ret;

	txq = queue_new(dev, sizeof(*txq), false, qid, nb_desc, socket,
			conf ? conf->tx_free_thresh : 0, &thresh, &ret);
	if (!txq)
		return ret;
	txq->free_thresh = thresh;
	txq->hdr_size = hw->hdr_size;
	txq->addr_off = mbuf_addr_off(hw);
	txq->q.deferred = conf && conf->tx_deferred_start;
	txq->in_order = gv_has(hw, GV_F_IN_ORDER);
	txq->indirect = gv_has(hw, GV_F_RING_INDIRECT_DESC);
	txq->csum = gv_has(hw, GV_NET_F_CSUM);
	txq->tso = gv_has(hw, GV_NET_F_HOST_TSO4) || gv_has(hw, GV_NET_F_HOST_TSO6);
	dev->data->tx_queues[qid] = txq;
	return 0;
}

/* --------------------------------------------------------- handoff -- */

bool gv_q_self_fence;

static long membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * At load: register for the private expedited membarrier, which runs a
 * full barrier on every CPU running one of this process's threads (an
 * IPI), so bursts can leave the store-load fence of gv_queue_enter to
 * the control path. A kernel before 4.14, or a seccomp filter that
 * refuses the call, leaves the bursts fencing themselves.
 */
RTE_INIT(gv_queue_fence_init)
{
	long cmds = membarrier(MEMBARRIER_CMD_QUERY);

	gv_q_self_fence = cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
			  membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0;
}

/*
 * The control path's half of the handoff's fence (gv_queue.h). The call
 * does not fail once registered; if it ever did, bursts fence
 * themselves from then on.
 */
static void fence_all_threads(void)
{
	if (!gv_q_self_fence && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
		GV_LOG(ERR, "membarrier: %s: bursts now fence themselves", strerror(errno));
		__atomic_store_n(&gv_q_self_fence, true, __ATOMIC_SEQ_CST);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void hold(struct gv_queue *q, uint32_t why)
{
	__atomic_fetch_or(&q->paused, why, __ATOMIC_RELAXED);
	/*
	 * paused before busy, and every burst's busy before its paused: a
	 * burst either sees paused and backs off, or its busy is seen here.
	 */
	fence_all_threads();
	while (__atomic_load_n(&q->busy, __ATOMIC_ACQUIRE))
		rte_pause();
}

static void let_go(struct gv_queue *q, uint32_t why)
{
	/* Release: the ring as reset here, before a burst may take it. */
	__atomic_fetch_and(&q->paused, ~why, __ATOMIC_RELEASE);
}

void gv_queue_pause(struct gv_queue *q)
{
	hold(q, GV_Q_HELD);
}

void gv_queue_resume(struct gv_queue *q)
{
	let_go(q, GV_Q_HELD);
}

struct gv_queue *gv_queue_of(struct rte_eth_dev *dev, bool rx, uint16_t i)
{
	void *q = rx ? dev->data->rx_queues[i] : dev->data->tx_queues[i];

	if (!q)
		return NULL;
	return rx ? &((struct gv_rxq *)q)->q : &((struct gv_txq *)q)->q;
}

/* Every queue the port runs, RX then TX; `fn` for each. */
void gv_queues_each(struct rte_eth_dev *dev, void (*fn)(struct gv_queue *q))
{
	for (int dir = 0; dir < 2; dir++) {
		const bool rx = dir == 0;
		const uint16_t nq = rx ? dev->data->nb_rx_queues : dev->data->nb_tx_queues;

		for (uint16_t i = 0; i < nq; i++) {
			struct gv_queue *q = gv_queue_of(dev, rx, i);

			if (q)
				fn(q);
		}
	}
}

/*
 * A stopped queue keeps its ring and buffers: its bursts return 0. RX:
 * the device fills the posted buffers and then drops for that queue;
 * what it delivered meanwhile (at most a ring) is received after the
 * start. TX: what was sent completes, and is reclaimed after the start
 * or at the port's stop.
 */
static int queue_switch(struct rte_eth_dev *dev, bool rx, uint16_t qid, bool on)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_queue *q = gv_queue_of(dev, rx, qid);
	uint8_t *state = rx ? dev->data->rx_queue_state : dev->data->tx_queue_state;

	pthread_mutex_lock(&hw->ctl_lock);
	if (on)
		let_go(q, GV_Q_STOPPED);
	else
		hold(q, GV_Q_STOPPED);
	state[qid] = on ? RTE_ETH_QUEUE_STATE_STARTED : RTE_ETH_QUEUE_STATE_STOPPED;
	pthread_mutex_unlock(&hw->ctl_lock);
	return 0;
}

int gv_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	return queue_switch(dev, true, qid, true);
}

int gv_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	return queue_switch(dev, true, qid, false);
}

int gv_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	return queue_switch(dev, false, qid, true);
}

int gv_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	return queue_switch(dev, false, qid, false);
}

/* No burst runs yet (the port is being started): plain bit changes. */
void gv_queues_start_states(struct rte_eth_dev *dev)
{
	for (int dir = 0; dir < 2; dir++) {
		bool rx = dir == 0;
		uint16_t nq = rx ? dev->data->nb_rx_queues : dev->data->nb_tx_queues;
		uint8_t *state = rx ? dev->data->rx_queue_state : dev->data->tx_queue_state;

		for (uint16_t i = 0; i < nq; i++) {
			struct gv_queue *q = gv_queue_of(dev, rx, i);

			if (q->deferred)
				__atomic_fetch_or(&q->paused, GV_Q_STOPPED, __ATOMIC_RELAXED);
			else
				let_go(q, GV_Q_STOPPED);
			state[i] = q->deferred ? RTE_ETH_QUEUE_STATE_STOPPED
					       : RTE_ETH_QUEUE_STATE_STARTED;
		}
	}
}

/* ---------------------------------------------------- start and drain -- */

/* The largest packet a queue takes, header included: frame, or with LRO a 64 KB TCP packet. */
static uint32_t rx_max_pkt(const struct gv_hw *hw, const struct gv_rxq *rxq, uint32_t frame)
{
	return rxq->ol_lro ? RTE_MAX(frame, 65535u + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN +
						    hw->hdr_size)
			   : frame;
}

/*
 * The refill point a start (or an MTU change on a running port) puts in
 * effect: the one asked for, except with mergeable buffers (the
 * mergeable path, or a vector path chaining a packet), where so many
 * free slots may wait that fewer buffers stay posted than the largest
 * packet (max_pkt bytes with its
 * header, buffers of at least room bytes) needs: the device could then
 * place nothing, and nothing would free slots up to the point.
 */
static uint32_t rx_refill_point(const struct gv_hw *hw, const struct gv_rxq *rxq, uint16_t qid,
				uint32_t max_pkt, uint32_t room)
{
	const uint32_t need = (max_pkt + room - 1) / room;
	const uint32_t cap = need < rxq->q.size ? rxq->q.size - need + 1u : 1u;

	if (!gv_has(hw, GV_NET_F_MRG_RXBUF) || rxq->refill_want <= cap)
		return rxq->refill_want;
	GV_LOG(INFO, "%s: rx queue %u: rx_free_thresh %u lowered to %u: a packet of up to %u bytes "
	       "takes %u buffers", hw->name, qid, rxq->refill_want, cap, max_pkt, need);
	return cap;
}

/* Smallest RX mbuf data room (after headroom) over the port's queues. */
uint32_t gv_rx_mbuf_room(struct rte_eth_dev *dev)
{
	uint32_t room = UINT32_MAX;

	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		if (rxq)
			room = RTE_MIN(room, (uint32_t)rte_pktmbuf_data_room_size(rxq->mp) -
						     RTE_PKTMBUF_HEADROOM);
	}
	return room;
}

int gv_queues_configure(struct rte_eth_dev *dev, uint32_t frame, uint32_t room)
{
	struct gv_hw *hw = hw_of(dev);
	const uint64_t rxo = dev->data->dev_conf.rxmode.offloads;
	const bool chains = gv_port_rx_path(hw)->chains;

	/* A configure after the queues' set-up may have changed the header (hash report). */
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++)
		((struct gv_txq *)dev->data->tx_queues[i])->hdr_size = hw->hdr_size;
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		rxq->hdr_size = hw->hdr_size;
		rxq->chain_len = chains ? (uint16_t)((frame + room - 1) / room) : 1;
		rxq->ol_csum = rxo & (RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM);
		rxq->ol_lro = rxo & RTE_ETH_RX_OFFLOAD_TCP_LRO;
		rxq->ol_vlan_strip = rxo & RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
		rxq->ol_rss_hash = (rxo & RTE_ETH_RX_OFFLOAD_RSS_HASH) &&
				   gv_has(hw, GV_NET_F_HASH_REPORT);
		gv_rxq_ol_sum(rxq);
		rxq->refill_thresh = rx_refill_point(hw, rxq, i, rx_max_pkt(hw, rxq, frame), room);
		if (rxq->chain_len > GV_RX_INDIRECT) {
			GV_LOG(ERR, "%s: frames of %u bytes need %u mbufs of %u bytes each: "
			       "use larger mbufs or mrg_rxbuf=1", hw->name, frame, rxq->chain_len, room);
			return -EINVAL;
		}
	}
	return 0;
}

void gv_queues_refill_points(struct rte_eth_dev *dev, uint32_t frame, uint32_t room)
{
	const struct gv_hw *hw = hw_of(dev);

	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		rxq->refill_thresh = rx_refill_point(hw, rxq, i, rx_max_pkt(hw, rxq, frame), room);
	}
}

/*
 * What every RX path's start needs: where buffers go in their mbufs
 * (gv_rxtx.h gv_rx_front) and the image of a returned one-mbuf buffer
 * made a fresh packet (gv_rxtx.h gv_rx_init_mbuf).
 */
static void rxq_prepare(struct gv_rxq *rxq)
{
	struct rte_mbuf tmpl;
	const struct gv_hw *hw = rxq->q.hw;

	memset(&tmpl, 0, sizeof(tmpl));
	rxq->mrg = gv_has(hw, GV_NET_F_MRG_RXBUF);
	rxq->front = gv_rx_front(rxq->hdr_size, gv_rx_hdr_shared(hw));
	tmpl.data_off = (uint16_t)(rxq->front + rxq->hdr_size);
	rte_mbuf_refcnt_set(&tmpl, 1);
	tmpl.nb_segs = 1;
	tmpl.port = rxq->port_id;
	memcpy(&rxq->mbuf_rearm, (const char *)&tmpl + offsetof(struct rte_mbuf, rearm_data), 8);
	/* Pinned external buffers keep their flag (as rte_pktmbuf_reset). */
	rxq->mbuf_ol = (rte_pktmbuf_priv_flags(rxq->mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF)
			       ? RTE_MBUF_F_EXTERNAL : 0;
	rxq->seg_len = (uint32_t)rte_pktmbuf_data_room_size(rxq->mp) - rxq->front;
}

int gv_queues_start(struct rte_eth_dev *dev)
{
	const struct gv_hw *hw = hw_of(dev);
	const struct gv_rx_path *rxp = gv_port_rx_path(hw);
	const struct gv_tx_path *txp = gv_port_tx_path(hw);
	int ret;

	/* Polling by default: no interrupts (eventfd writes) from the device. */
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		gv_vq_disable_cb(rxq->q.vq);
		rxq_prepare(rxq);
		/* A queue left without buffers (logged) fails it all. */
		ret = rxp->start(rxq);
		if (ret)
			return ret;
	}
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++) {
		struct gv_txq *txq = dev->data->tx_queues[i];

		gv_vq_disable_cb(txq->q.vq);
		if (txp->start && (ret = txp->start(txq)) != 0)
			return ret;
	}
	return 0;
}

void gv_queue_broken(struct gv_queue *q, const char *dir)
{
	struct gv_vq_stats s;

	if (q->broken_logged)
		return;
	q->broken_logged = true;
	gv_vq_stats(q->vq, &s);
	GV_LOG(ERR,
	       "%s: %s queue %u stopped: the device wrote invalid ring data "
	       "(bad_id=%" PRIu64 " id_not_inflight=%" PRIu64 " bad_len=%" PRIu64
	       " bad_flags=%" PRIu64 " bad_used_idx=%" PRIu64 " bad_order=%" PRIu64 ")",
	       q->hw->name, dir, q->queue_id, s.bad_id, s.id_not_inflight, s.bad_len,
	       s.bad_flags, s.bad_used_idx, s.bad_order);
}

/* Give back every mbuf the queue's ring holds and reset it (port stop). */
static void queue_drain(struct gv_queue *q)
{
	void *cookie;

	if (!q->vq)
		return;
	while ((cookie = gv_vq_detach(q->vq)) != NULL)
		rte_pktmbuf_free(cookie);
	gv_vq_reset(q->vq);
	q->broken_logged = false;
}

/* The same, and the mbufs an RX queue holds outside its ring. */
static void rxq_drain(struct gv_rxq *rxq)
{
	queue_drain(&rxq->q);
	if (rxq->mrg_head)
		rte_pktmbuf_free(rxq->mrg_head);
	rxq->mrg_head = rxq->mrg_tail = NULL;
	rxq->mrg_left = 0;
	while (rxq->n_spare)
		rte_pktmbuf_free_seg(rxq->spare[--rxq->n_spare]);
}

void gv_queues_drain(struct rte_eth_dev *dev)
{
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++)
		if (dev->data->rx_queues[i])
			rxq_drain(dev->data->rx_queues[i]);
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++)
		if (dev->data->tx_queues[i])
			queue_drain(&((struct gv_txq *)dev->data->tx_queues[i])->q);
}

uint16_t gv_tx_owned(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n)
{
	return gv_port_tx_path(txq->q.hw)->owned(txq, pkts, n);
}

/*
 * rte_eth_tx_done_cleanup. On the application's thread, like the bursts
 * (not at the same time as one on this queue, as ethdev says); a queue
 * the control path holds (a restart) gives back nothing, and so does a
 * stopped port's (its rings are drained and reset).
 */
int gv_tx_done_cleanup(void *q, uint32_t free_cnt)
{
	struct gv_txq *txq = q;
	uint32_t done;

	if (!gv_queue_enter(&txq->q))
		return 0;
	done = gv_port_tx_path(txq->q.hw)->cleanup(txq, free_cnt ? free_cnt : UINT32_MAX);
	if (unlikely(gv_vq_broken(txq->q.vq)))
		gv_queue_broken(&txq->q, "tx");
	gv_queue_exit(&txq->q);
	return (int)RTE_MIN(done, (uint32_t)INT32_MAX);
}

/* ---------------------------------------------------------- queries -- */

/* rte_eth_rx_queue_info_get (ethdev checked the queue exists and zeroed qinfo). */
void gv_rxq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_rxq_info *qinfo)
{
	const struct gv_hw *hw = dev->data->dev_private;
	const struct gv_rxq *rxq = dev->data->rx_queues[queue_id];

	qinfo->mp = rxq->mp;
	qinfo->nb_desc = rxq->q.size;
	/* A packet may span mbufs: mergeable buffers, or chains (as of the last start). */
	qinfo->scattered_rx = gv_has(hw, GV_NET_F_MRG_RXBUF) || rxq->chain_len > 1;
	qinfo->rx_buf_size = (uint16_t)(rte_pktmbuf_data_room_size(rxq->mp) - RTE_PKTMBUF_HEADROOM);
	qinfo->conf.rx_free_thresh = (uint16_t)rxq->refill_thresh;
	qinfo->conf.rx_deferred_start = rxq->q.deferred;
	qinfo->conf.offloads = dev->data->dev_conf.rxmode.offloads;
}

void gv_txq_info_get(struct rte_eth_dev *dev, uint16_t queue_id, struct rte_eth_txq_info *qinfo)
{
	const struct gv_txq *txq = dev->data->tx_queues[queue_id];

	qinfo->nb_desc = txq->q.size;
	qinfo->conf.tx_free_thresh = (uint16_t)txq->free_thresh;
	qinfo->conf.tx_deferred_start = txq->q.deferred;
	qinfo->conf.offloads = dev->data->dev_conf.txmode.offloads;
}
