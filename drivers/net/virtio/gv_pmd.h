/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pmd.h - the PMD's shared state: the port (struct gv_hw), the path
 * identifiers, and logging (the queues: gv_queue.h). The ring itself is
 * the core's (common/ring); the device is reached through the transport
 * ops (gv_transport.h).
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

/* The RX and TX paths (objects: gv_path.h); chosen per port by gv_path_select(). */
enum gv_rx_path_id {
	GV_RX_SIMPLE, /* one buffer per packet, no offloads */
	GV_RX_MRG, /* mergeable buffers: packets span num_buffers mbufs */
	GV_RX_FULL, /* chains of mbufs per packet, offloads, no MRG_RXBUF */
	GV_RX_VEC_SSE, /* simple on a fixed ring, SSE4.2 (gv_rx_vec*.c) */
	GV_RX_VEC_AVX2, /* the same, AVX2 */
	GV_RX_PATH_MAX,
};

enum gv_tx_path_id {
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

	enum gv_rx_path_id rx_path; /* the paths of the last start (gv_path.h) */
	enum gv_tx_path_id tx_path;

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

/* gv_path.c */
typedef uint16_t (*gv_burst_fn)(void *q, struct rte_mbuf **pkts, uint16_t n);
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
