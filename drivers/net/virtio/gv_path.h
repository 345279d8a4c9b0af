/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_path.h - an RX or TX path as an object: what it needs, refuses and
 * offers (gv_path.c chooses among them), and what it runs: one burst
 * function per (ring layout, barrier policy), its queue start, and on TX
 * its sends and reclaims on a queue the caller holds. Each path's object
 * is defined in the file of its bursts:
 *
 *   RX simple, mergeable, full       gv_rx.c
 *   RX vectorized (SSE, AVX2)        gv_rx_vec.c (packed bodies: gv_rx_vec_packed.c)
 *   TX simple, inorder, full         gv_tx.c
 *   TX vectorized (SSE)              gv_tx_vec.c
 *
 * A queue's life (set-up, start, pause, drain, free) is the same for
 * every path and is gv_queue.c's; it calls a path's start. The port keeps
 * the chosen paths as ids (enum gv_rx_path_id, gv_tx_path_id: shared
 * with secondary processes, where the objects sit at other addresses).
 */
#ifndef GV_PATH_H
#define GV_PATH_H

#include <ethdev_driver.h>
#include <rte_cpuflags.h>

#include "gv_pmd.h"

struct gv_rxq;
struct gv_txq;

/* What RX and TX paths have in common: the row gv_path.c's choice reads. */
struct gv_path {
	const char *name; /* ethdev's burst mode info */
	int id; /* enum gv_rx_path_id / gv_tx_path_id */
	uint64_t needs; /* feature bits that must be negotiated */
	uint64_t refuses; /* feature bits that must not be */
	uint64_t offloads; /* the offloads it can do */
	bool one_mbuf; /* RX: frames must fit one mbuf */
	bool vector; /* a vector path (vectorized=) */
	enum gv_force_path cls; /* the datapath= value that selects it */
	/* This CPU and EAL's SIMD limit allow it; NULL: always. */
	bool (*usable)(void);
	/* [packed][mandatory barriers]; each holds its queue for the burst. */
	gv_burst_fn burst[2][2];
};

struct gv_rx_path {
	struct gv_path p;
	bool chains; /* posts chains of mbufs when a frame does not fit one */
	/* The queue's ring handed over (port start, restart): first buffers; 0 or the error. */
	int (*start)(struct gv_rxq *rxq);
};

struct gv_tx_path {
	struct gv_path p;
	/* The ring handed over (port start, restart); NULL: nothing to do. */
	int (*start)(struct gv_txq *txq);
	/* Send on a queue the caller holds (gv_queue_pause). */
	uint16_t (*owned)(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n);
	/* Up to max sent packets' mbufs back, without sending (the caller holds the queue). */
	uint32_t (*cleanup)(struct gv_txq *txq, uint32_t max);
	eth_tx_prep_t prepare; /* ethdev's tx_pkt_prepare, or NULL */
};

extern const struct gv_rx_path gv_rx_path_simple, gv_rx_path_mrg, gv_rx_path_full;
extern const struct gv_rx_path gv_rx_path_vec_sse, gv_rx_path_vec_avx2;
extern const struct gv_tx_path gv_tx_path_simple, gv_tx_path_inorder, gv_tx_path_full;
extern const struct gv_tx_path gv_tx_path_vec_sse;

/* The object of a path id; NULL for none (GV_*_PATH_MAX). */
const struct gv_rx_path *gv_rx_path_get(enum gv_rx_path_id id);
const struct gv_tx_path *gv_tx_path_get(enum gv_tx_path_id id);

/* The port's chosen paths (valid once gv_path_select succeeded). */
static inline const struct gv_rx_path *gv_port_rx_path(const struct gv_hw *hw)
{
	return gv_rx_path_get(hw->rx_path);
}

static inline const struct gv_tx_path *gv_port_tx_path(const struct gv_hw *hw)
{
	return gv_tx_path_get(hw->tx_path);
}

/* Path id usable here: its object exists and this CPU allows it (scalar paths: always). */
bool gv_rx_path_usable(enum gv_rx_path_id id);
bool gv_tx_path_usable(enum gv_tx_path_id id);

/*
 * The port's bursts into ethdev (the paths the port's last start chose),
 * or, with started false, bursts that move nothing.
 */
void gv_path_install(struct rte_eth_dev *dev, bool started);

/* A port that is not started (or whose backend left) moves nothing. */
uint16_t gv_burst_none(void *q, struct rte_mbuf **pkts, uint16_t n);

/*
 * Call a function specialised by the literals (L, B) with the queue's
 * layout and barrier policy: for cold callers (start, owned sends,
 * cleanup), which run one copy's code without a burst's table.
 */
#define GV_LB_CALL(hw, fn, ...)                                                               \
	((hw)->layout == GV_LAYOUT_PACKED                                                     \
		 ? ((hw)->barrier == GV_BARRIER_MANDATORY                                     \
			    ? fn(__VA_ARGS__, GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY)         \
			    : fn(__VA_ARGS__, GV_LAYOUT_PACKED, GV_BARRIER_SMP))              \
		 : ((hw)->barrier == GV_BARRIER_MANDATORY                                     \
			    ? fn(__VA_ARGS__, GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY)          \
			    : fn(__VA_ARGS__, GV_LAYOUT_SPLIT, GV_BARRIER_SMP)))

/*
 * One burst function as ethdev calls it: `decl` is its storage class and
 * attributes (static, a target attribute), `qtype` its queue type, and
 * body(q, pkts, n, ...) the specialised body. It holds the queue for the
 * length of the burst (gv_queue_enter: a plain store and load), so the
 * control path can pause the queue and reset its ring under a running
 * port.
 */
#define GV_BURST(decl, name, qtype, body, ...)                                 \
	decl uint16_t name(void *q, struct rte_mbuf **pkts, uint16_t n)        \
	{                                                                      \
		struct gv_queue *gq = &((qtype *)q)->q;                        \
		uint16_t r;                                                    \
									       \
		if (unlikely(!gv_queue_enter(gq)))                             \
			return 0;                                              \
		r = body((qtype *)q, pkts, n, __VA_ARGS__);                    \
		gv_queue_exit(gq);                                             \
		return r;                                                      \
	}

/* The four copies of body(q, pkts, n, L, B), as a path's burst table name##_fns. */
#define GV_BURSTS_LB(name, qtype, body)                                        \
	GV_BURST(static, name##_split_smp, qtype, body, GV_LAYOUT_SPLIT, GV_BARRIER_SMP) \
	GV_BURST(static, name##_split_mand, qtype, body, GV_LAYOUT_SPLIT,      \
		 GV_BARRIER_MANDATORY)                                         \
	GV_BURST(static, name##_packed_smp, qtype, body, GV_LAYOUT_PACKED, GV_BARRIER_SMP) \
	GV_BURST(static, name##_packed_mand, qtype, body, GV_LAYOUT_PACKED,    \
		 GV_BARRIER_MANDATORY)

#define GV_BURSTS_LB_TABLE(name)                                               \
	{ { name##_split_smp, name##_split_mand }, { name##_packed_smp, name##_packed_mand } }

/* The table of a path that has no bursts in this build (vector paths off x86). */
#define GV_BURSTS_NONE { { gv_burst_none, gv_burst_none }, { gv_burst_none, gv_burst_none } }

/*
 * A vector path's condition at run time: 64-bit pointers (the bodies move
 * mbuf pointers several to a vector), EAL's SIMD limit at least `bits`,
 * and the CPU's `flag`.
 */
bool gv_path_simd_ok(uint16_t bits, enum rte_cpu_flag_t flag);

#endif /* GV_PATH_H */
