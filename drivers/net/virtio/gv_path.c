/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_path.c - the one place that chooses a port's RX and TX paths, and
 * installs the chosen paths' bursts into ethdev.
 *
 * Each direction has a list of path objects (gv_path.h) in order of
 * preference, each saying what it needs (negotiated features), what it
 * cannot do (offloads, frames larger than one mbuf) and which forced
 * class (datapath=) it belongs to. The first that fits wins. RX and TX
 * are chosen independently: an RX offload or mergeable buffers never
 * force the full TX path, and the reverse. The chosen paths' names answer
 * ethdev's burst mode queries.
 */
#include <ethdev_driver.h>
#include <rte_ethdev.h>
#include <rte_vect.h>

#include "gv_path.h"

/*
 * The paths in order of preference: the first usable one that fits wins.
 * Each path carries its own id (enum gv_rx_path_id, gv_tx_path_id).
 */
static const struct gv_path *const rx_paths[] = {
	/*
	 * The vector bodies (gv_rx_vec.c, gv_rx_vec_packed.c): both layouts,
	 * with or without mergeable buffers (the port's frames fit one mbuf;
	 * a longer packet the device spreads over several buffers is chained
	 * on the side, gv_rx_vec.h vec_one).
	 */
	&gv_rx_path_vec_avx2.p,
	&gv_rx_path_vec_sse.p,
	&gv_rx_path_mrg.p,
	&gv_rx_path_simple.p,
	&gv_rx_path_full.p,
};

static const struct gv_path *const tx_paths[] = {
	&gv_tx_path_vec_sse.p,
	&gv_tx_path_inorder.p,
	/* With IN_ORDER a device may close a batch with one entry: inorder reclaims it. */
	&gv_tx_path_simple.p,
	&gv_tx_path_full.p,
};

const struct gv_rx_path *gv_rx_path_get(enum gv_rx_path_id id)
{
	for (size_t i = 0; i < RTE_DIM(rx_paths); i++)
		if (rx_paths[i]->id == (int)id)
			return container_of(rx_paths[i], const struct gv_rx_path, p);
	return NULL;
}

const struct gv_tx_path *gv_tx_path_get(enum gv_tx_path_id id)
{
	for (size_t i = 0; i < RTE_DIM(tx_paths); i++)
		if (tx_paths[i]->id == (int)id)
			return container_of(tx_paths[i], const struct gv_tx_path, p);
	return NULL;
}

static bool path_usable(const struct gv_path *p)
{
	return !p->usable || p->usable();
}

bool gv_rx_path_usable(enum gv_rx_path_id id)
{
	const struct gv_rx_path *r = gv_rx_path_get(id);

	return r && path_usable(&r->p);
}

bool gv_tx_path_usable(enum gv_tx_path_id id)
{
	const struct gv_tx_path *t = gv_tx_path_get(id);

	return t && path_usable(&t->p);
}

bool gv_path_simd_ok(uint16_t bits, enum rte_cpu_flag_t flag)
{
	return sizeof(void *) == 8 && rte_vect_get_max_simd_bitwidth() >= bits &&
	       rte_cpu_get_flag_enabled(flag) > 0;
}

uint16_t gv_burst_none(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

/* The path's copy for the port's layout and barrier policy; none where it cannot run. */
static gv_burst_fn path_burst(const struct gv_path *p, const struct gv_hw *hw)
{
	if (!p || !path_usable(p))
		return gv_burst_none;
	return p->burst[hw->layout == GV_LAYOUT_PACKED][hw->barrier == GV_BARRIER_MANDATORY];
}

void gv_path_install(struct rte_eth_dev *dev, bool started)
{
	const struct gv_hw *hw = dev->data->dev_private;
	const struct gv_rx_path *rx = started ? gv_port_rx_path(hw) : NULL;
	const struct gv_tx_path *tx = started ? gv_port_tx_path(hw) : NULL;

	dev->rx_pkt_burst = path_burst(rx ? &rx->p : NULL, hw);
	dev->tx_pkt_burst = path_burst(tx ? &tx->p : NULL, hw);
	dev->tx_pkt_prepare = tx ? tx->prepare : NULL;
}

static bool path_fits(const struct gv_path *r, uint64_t features, uint64_t offloads,
		      bool fits_one_mbuf)
{
	return (features & r->needs) == r->needs && !(features & r->refuses) &&
	       (offloads & ~r->offloads) == 0 && (!r->one_mbuf || fits_one_mbuf);
}

/*
 * First path that fits. A forced class picks the first fitting path of
 * that class; a path of class NONE (mergeable RX: the only scalar RX path
 * once MRG_RXBUF is negotiated) serves every class.
 */
static int pick(const struct gv_path *const *paths, size_t n, uint64_t features,
		uint64_t offloads, bool fits, enum gv_force_path force, bool vec_ok)
{
	for (size_t i = 0; i < n; i++) {
		const struct gv_path *r = paths[i];

		if (force != GV_FORCE_NONE && r->cls != force && r->cls != GV_FORCE_NONE)
			continue;
		if (r->vector && !(vec_ok && path_usable(r)))
			continue;
		if (path_fits(r, features, offloads, fits))
			return r->id;
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
	int rx = pick(rx_paths, RTE_DIM(rx_paths), hw->features, rx_offloads, fits, rx_force,
		      vec_ok(hw));
	int tx = pick(tx_paths, RTE_DIM(tx_paths), hw->features, tx_offloads, true, hw->force_path,
		      vec_ok(hw));

	if (rx < 0 || tx < 0) {
		GV_LOG(ERR, "%s: datapath forced to a path that cannot serve this configuration "
		       "(rx %s, tx %s: offloads rx 0x%" PRIx64 " tx 0x%" PRIx64 ", frame %u, mbuf room %u%s)",
		       hw->name, rx < 0 ? "impossible" : "ok", tx < 0 ? "impossible" : "ok",
		       rx_offloads, tx_offloads, max_rx_frame, mbuf_room,
		       gv_has(hw, GV_F_IN_ORDER) ? "" : ", IN_ORDER not negotiated");
		return -ENOTSUP;
	}
	hw->rx_path = (enum gv_rx_path_id)rx;
	hw->tx_path = (enum gv_tx_path_id)tx;
	if (hw->vec_mode == GV_VEC_ON && !gv_port_rx_path(hw)->p.vector)
		GV_LOG(INFO, "%s: vectorized=1: no vector rx path fits (it needs "
		       "no rx offloads, frames in one mbuf, and SSE4.2 within EAL's SIMD limit)", hw->name);
	GV_LOG(INFO, "%s: rx path %s, tx path %s (%s ring)", hw->name, gv_port_rx_path(hw)->p.name,
	       gv_port_tx_path(hw)->p.name, hw->layout == GV_LAYOUT_PACKED ? "packed" : "split");
	GV_LOG(INFO, "%s: rx header in %s cache line (rx_hdr_line=%s)", hw->name,
	       gv_rx_hdr_shared(hw) ? "the frame's first" : "its own",
	       gv_rx_hdr_shared(hw) ? "shared" : "own");
	if (gv_port_rx_path(hw)->p.vector)
		GV_LOG(INFO, "%s: vector rx keeps no multicast/broadcast counters "
		       "(vectorized=0 keeps them)", hw->name);
	return 0;
}

/* The paths the port's last start chose (every queue runs the same). */
int gv_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode)
{
	const struct gv_rx_path *p = gv_port_rx_path(dev->data->dev_private);

	(void)queue_id;
	snprintf(mode->info, sizeof(mode->info), "%s", p ? p->p.name : "none");
	return 0;
}

int gv_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t queue_id,
			 struct rte_eth_burst_mode *mode)
{
	const struct gv_tx_path *p = gv_port_tx_path(dev->data->dev_private);

	(void)queue_id;
	snprintf(mode->info, sizeof(mode->info), "%s", p ? p->p.name : "none");
	return 0;
}
