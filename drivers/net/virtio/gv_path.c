/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_path.c - the one place that chooses a port's RX and TX paths.
 *
 * Each direction has a table of paths in order of preference, each row
 * saying what it needs (negotiated features), what it cannot do (offloads,
 * frames larger than one mbuf) and which forced class (datapath=) it
 * belongs to. The first row that fits wins. RX and TX are chosen
 * independently: an RX offload or mergeable buffers never force the full
 * TX path, and the reverse. The chosen paths' names answer ethdev's burst
 * mode queries; the queue info queries report what a queue was set up
 * with (ring size, pool, refill / reclaim thresholds), and the checks and
 * caps that turn the asked thresholds into those points are here too.
 */
#include <ethdev_driver.h>
#include <rte_ethdev.h>

#include "gv_offload.h"
#include "gv_pmd.h"

struct path_row {
	int path;
	const char *name;
	uint64_t needs; /* feature bits that must be negotiated */
	uint64_t refuses; /* feature bits that must not be */
	uint64_t offloads; /* offloads the path supports */
	bool one_mbuf; /* frames must fit one mbuf (RX) */
	enum gv_force_path cls; /* the datapath= value that selects it */
	/* A vector path: only if vec_ok() and this says the CPU and EAL's SIMD limit allow it. */
	bool (*usable)(int path);
};

static bool rx_vec_usable(int p)
{
	return gv_rx_vec_usable((enum gv_rx_path)p);
}

static bool tx_vec_usable(int p)
{
	return gv_tx_vec_usable((enum gv_tx_path)p);
}

static const struct path_row rx_rows[] = {
	/*
	 * The simple path's vector bodies (gv_rx_vec.c, gv_rx_vec_packed.c):
	 * both layouts, with or without mergeable buffers (the port's frames
	 * fit one mbuf; a longer packet the device spreads over several
	 * buffers is chained on the side, gv_rx_vec.h vec_one).
	 */
	{ GV_RX_VEC_AVX2, "vectorized (AVX2)", 0, 0, GV_RX_OFFLOAD_SIMPLE, true, GV_FORCE_SIMPLE,
	  rx_vec_usable },
	{ GV_RX_VEC_SSE, "vectorized (SSE)", 0, 0, GV_RX_OFFLOAD_SIMPLE, true, GV_FORCE_SIMPLE,
	  rx_vec_usable },
	{ GV_RX_MRG, "mergeable", GV_BIT(GV_NET_F_MRG_RXBUF), 0,
	  GV_RX_OFFLOAD_ALL, false, GV_FORCE_NONE, NULL },
	{ GV_RX_SIMPLE, "simple", 0, GV_BIT(GV_NET_F_MRG_RXBUF),
	  GV_RX_OFFLOAD_SIMPLE, true, GV_FORCE_SIMPLE, NULL },
	{ GV_RX_FULL, "full", 0, GV_BIT(GV_NET_F_MRG_RXBUF),
	  GV_RX_OFFLOAD_ALL, false, GV_FORCE_FULL, NULL },
};

static const struct path_row tx_rows[] = {
	/* In-order on a fixed ring, either layout (gv_tx_vec.c). */
	{ GV_TX_VEC_SSE, "vectorized (SSE)", GV_BIT(GV_F_IN_ORDER), 0, 0, false, GV_FORCE_INORDER,
	  tx_vec_usable },
	{ GV_TX_INORDER, "inorder", GV_BIT(GV_F_IN_ORDER), 0, 0, false, GV_FORCE_INORDER, NULL },
	/* With IN_ORDER a device may close a batch with one entry: inorder reclaims it. */
	{ GV_TX_SIMPLE, "simple", 0, GV_BIT(GV_F_IN_ORDER), 0, false, GV_FORCE_SIMPLE, NULL },
	{ GV_TX_FULL, "full", 0, 0, GV_TX_OFFLOAD_ALL, false, GV_FORCE_FULL, NULL },
};

static const struct path_row *rx_row(enum gv_rx_path p)
{
	for (size_t i = 0; i < RTE_DIM(rx_rows); i++)
		if (rx_rows[i].path == (int)p)
			return &rx_rows[i];
	return NULL;
}

const char *gv_rx_path_name(enum gv_rx_path p)
{
	return rx_row(p) ? rx_row(p)->name : "none";
}

uint64_t gv_rx_path_offloads(enum gv_rx_path p)
{
	return rx_row(p) ? rx_row(p)->offloads : 0;
}

const char *gv_tx_path_name(enum gv_tx_path p)
{
	for (size_t i = 0; i < RTE_DIM(tx_rows); i++)
		if (tx_rows[i].path == (int)p)
			return tx_rows[i].name;
	return "none";
}

static bool row_fits(const struct path_row *r, uint64_t features, uint64_t offloads,
		     bool fits_one_mbuf)
{
	return (features & r->needs) == r->needs && !(features & r->refuses) &&
	       (offloads & ~r->offloads) == 0 && (!r->one_mbuf || fits_one_mbuf);
}

/*
 * First row that fits. A forced class picks the first fitting row of that
 * class; a row of class NONE (mergeable RX: the only scalar RX path once
 * MRG_RXBUF is negotiated) serves every class.
 */
static int pick(const struct path_row *rows, size_t n, uint64_t features, uint64_t offloads,
		bool fits, enum gv_force_path force, bool vec_ok)
{
	for (size_t i = 0; i < n; i++) {
		if (force != GV_FORCE_NONE && rows[i].cls != force && rows[i].cls != GV_FORCE_NONE)
			continue;
		if (rows[i].usable && !(vec_ok && rows[i].usable(rows[i].path)))
			continue;
		if (row_fits(&rows[i], features, offloads, fits))
			return rows[i].path;
	}
	return -1;
}

/* vectorized=1, or no devarg and IN_ORDER negotiated (enum gv_vec_mode). */
static bool vec_ok(const struct gv_hw *hw)
{
	return hw->vec_mode == GV_VEC_ON ||
	       (hw->vec_mode == GV_VEC_AUTO && gv_has(hw, GV_F_IN_ORDER));
}

int gv_path_select(struct gv_hw *hw, uint64_t rx_offloads, uint64_t tx_offloads,
		   uint32_t max_rx_frame, uint32_t mbuf_room)
{
	bool fits = max_rx_frame <= mbuf_room;
	/* RX has no in-order variant of its own: the core handles IN_ORDER. */
	enum gv_force_path rx_force = hw->force_path == GV_FORCE_INORDER ? GV_FORCE_SIMPLE
									 : hw->force_path;
	int rx = pick(rx_rows, RTE_DIM(rx_rows), hw->features, rx_offloads, fits, rx_force,
		      vec_ok(hw));
	int tx = pick(tx_rows, RTE_DIM(tx_rows), hw->features, tx_offloads, true, hw->force_path,
		      vec_ok(hw));

	if (rx < 0 || tx < 0) {
		GV_LOG(ERR, "%s: datapath forced to a path that cannot serve this configuration "
		       "(rx %s, tx %s: offloads rx 0x%" PRIx64 " tx 0x%" PRIx64 ", frame %u, mbuf room %u%s)",
		       hw->name, rx < 0 ? "impossible" : "ok", tx < 0 ? "impossible" : "ok",
		       rx_offloads, tx_offloads, max_rx_frame, mbuf_room,
		       gv_has(hw, GV_F_IN_ORDER) ? "" : ", IN_ORDER not negotiated");
		return -ENOTSUP;
	}
	hw->rx_path = (enum gv_rx_path)rx;
	hw->tx_path = (enum gv_tx_path)tx;
	if (hw->vec_mode == GV_VEC_ON && !gv_rx_path_vec(hw->rx_path))
		GV_LOG(INFO, "%s: vectorized=1: no vector rx path fits (it needs "
		       "no rx offloads, frames in one mbuf, and SSE4.2 within EAL's SIMD limit)", hw->name);
	GV_LOG(INFO, "%s: rx path %s, tx path %s (%s ring)", hw->name, gv_rx_path_name(hw->rx_path),
	       gv_tx_path_name(hw->tx_path), hw->layout == GV_LAYOUT_PACKED ? "packed" : "split");
	GV_LOG(INFO, "%s: rx header in %s cache line (rx_hdr_line=%s)", hw->name,
	       gv_rx_hdr_shared(hw) ? "the frame's first" : "its own",
	       gv_rx_hdr_shared(hw) ? "shared" : "own");
	if (gv_rx_path_vec(hw->rx_path))
		GV_LOG(INFO, "%s: vector rx keeps no multicast/broadcast counters "
		       "(vectorized=0 keeps them)", hw->name);
	return 0;
}

/* The paths the port's last start chose (every queue runs the same). */
int gv_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode)
{
	const struct gv_hw *hw = dev->data->dev_private;

	(void)queue_id;
	snprintf(mode->info, sizeof(mode->info), "%s", gv_rx_path_name(hw->rx_path));
	return 0;
}

int gv_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode)
{
	const struct gv_hw *hw = dev->data->dev_private;

	(void)queue_id;
	snprintf(mode->info, sizeof(mode->info), "%s", gv_tx_path_name(hw->tx_path));
	return 0;
}

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

/*
 * A queue's {rx,tx}_free_thresh: RX refills once that many buffers are
 * free, TX reclaims once fewer descriptors than that are free (DPDK's
 * meanings). 0 asks for ours: a quarter of the ring, at most 32. Less
 * than the ring size, as DPDK's virtio PMD asks.
 */
int gv_queue_thresh(const struct gv_hw *hw, const char *dir, uint16_t qid, uint16_t want,
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

/*
 * The refill point a start (or an MTU change on a running port) puts in
 * effect: the one asked for, except with mergeable buffers (the
 * mergeable path, or a vector path chaining a packet), where so many
 * free slots may wait that fewer buffers stay posted than the largest
 * packet (max_pkt bytes with its
 * header, buffers of at least room bytes) needs: the device could then
 * place nothing, and nothing would free slots up to the point.
 */
uint32_t gv_rx_refill_point(const struct gv_hw *hw, const struct gv_rxq *rxq, uint16_t qid,
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
