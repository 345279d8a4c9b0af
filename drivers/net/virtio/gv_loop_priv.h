/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_loop_priv.h - the state of the loopback device (net_gvirtio_loop)
 * shared by its three parts: gv_loop.c (vdev, transport ops, test API),
 * gv_loop_net.c (transmit processing, offloads, receive delivery) and
 * gv_loop_ctrl.c (control queue commands). The device runs only inside
 * the transport's notify op, on the caller's thread.
 */
#ifndef GV_LOOP_PRIV_H
#define GV_LOOP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "gv_loop.h"
#include "gv_queue.h"
#include "gv_vqd.h"

#define GV_LOOP_MAX_VQ (2 * GV_LOOP_MAX_PAIRS + 1)
#define GV_LOOP_STASH 64 /* RX chains held for one packet (num_buffers max) */
#define GV_LOOP_MAX_FRAME (256u * 1024) /* largest frame taken from TX */
#define GV_LOOP_SEG_BUF (65536u + 1024) /* one GSO segment: headers + MSS */
#define GV_LOOP_CTRL_MAX 65536 /* largest control command accepted */
#define GV_LOOP_KEY_MAX 40 /* rss_max_key_size */
#define GV_LOOP_TABLE_MAX 128 /* rss_max_indirection_table_length */
#define GV_LOOP_HASH_TYPES 0x3fu /* IPv4, TCPv4, UDPv4, IPv6, TCPv6, UDPv6 */

#if GV_LOOP_MAX_PAIRS != GV_MAX_QUEUE_PAIRS
#error "the loop device and the PMD disagree on the number of queue pairs"
#endif

/* The virtio-net header, the largest form (HASH_REPORT). Little endian. */
struct gv_loop_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
	uint32_t hash_value;
	uint16_t hash_report;
	uint16_t padding;
};

/* One virtqueue as the device sees it. */
struct gv_loop_vq {
	struct gv_queue *q; /* the driver's queue, from setup_queue */
	struct gv_vqd *d; /* device end, while running */
	/* RX: chains taken from the ring but not filled yet, in ring order. */
	struct gv_chain *stash;
	uint16_t st_head, st_count;
	bool broken_logged;
};

/* Hash parameters: RSS_CONFIG's, or HASH_CONFIG's (report only). */
struct gv_loop_hash {
	uint32_t types;
	uint8_t key_len;
	uint8_t key[GV_LOOP_KEY_MAX];
};

struct gv_loop {
	/* what the device is (devargs) */
	uint64_t offered;
	uint16_t max_pairs;
	uint16_t qmax;
	uint16_t mtu;
	uint32_t speed;
	bool ctrl_silent; /* never answer the control queue (a test of timeouts) */
	uint8_t perm_mac[6];

	/* negotiation */
	uint64_t features;
	bool features_ok;
	bool running;
	bool needs_reset; /* DEVICE_NEEDS_RESET: the device does nothing until reset */
	uint16_t hdr_size;

	/* config space and filters */
	uint16_t status;
	uint8_t mac[6];
	bool promisc, allmulti;
	uint32_t n_uc, n_mc;
	uint8_t uc[GV_LOOP_MAX_UC][6];
	uint8_t mc[GV_LOOP_MAX_MC][6];
	uint64_t vlan[4096 / 64];
	uint16_t pairs;
	bool rss;
	uint16_t rss_mask;
	uint16_t unclassified;
	uint16_t table[GV_LOOP_TABLE_MAX];
	struct gv_loop_hash rss_hash, rep_hash;

	struct gv_loop_vq vq[GV_LOOP_MAX_VQ];
	uint32_t rx_dirty; /* RX queues with used entries to publish */
	/*
	 * rx_hold (a test of a device that publishes a packet's buffers in two
	 * steps): the last buffer of the last packet spread over several,
	 * staged at the device's next run (gv_loop_rx_release).
	 */
	bool rx_hold;
	struct {
		bool pending;
		uint16_t rxq, id, ndesc;
		uint32_t len;
	} held;
	struct gv_loop_stats st; /* counters only; state is filled in on read */

	/* scratch (one device, one thread) */
	struct gv_chain *chain;
	uint8_t *pkt; /* a transmitted frame, header stripped */
	uint8_t *seg; /* a GSO segment under construction */
	uint8_t *cmd; /* a control command's data */
	char name[64];
};

static inline bool gv_loop_has(const struct gv_loop *lp, unsigned int bit)
{
	return (lp->features & GV_BIT(bit)) != 0;
}

/* Queue pairs the virtqueue numbering uses (spec: N, controlq is 2N). */
static inline uint16_t gv_loop_vq_pairs(const struct gv_loop *lp)
{
	return gv_loop_has(lp, GV_NET_F_MQ) || gv_loop_has(lp, GV_NET_F_RSS) ? lp->max_pairs : 1;
}

/* gv_loop_net.c */
void gv_loop_tx(struct gv_loop *lp, uint16_t pair);
void gv_loop_queue_broken(struct gv_loop *lp, uint16_t idx);

/* gv_loop_ctrl.c */
void gv_loop_ctrl(struct gv_loop *lp, uint16_t idx);
/* Filters, steering and hash parameters back to their reset values. */
void gv_loop_filters_reset(struct gv_loop *lp);

#define GV_LOOP_EXPORT __attribute__((visibility("default")))

#endif /* GV_LOOP_PRIV_H */
