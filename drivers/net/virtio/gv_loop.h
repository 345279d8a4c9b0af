/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_loop.h - the test-only API of the net_gvirtio_loop vdev: an
 * in-process software virtio-net device (gv_loop*.c) that sends every
 * packet the driver transmits back to the driver's RX queues. Tests use
 * it to flip the link, request an announce, and read what the device saw
 * (its counters and the filter state the control queue left behind).
 *
 * All calls are for a port created from net_gvirtio_loop; any other port
 * gets -ENODEV. Not thread-safe against the port's datapath: call them
 * from the thread that runs the bursts (the device is single-threaded).
 */
#ifndef GV_LOOP_H
#define GV_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GV_LOOP_MAX_PAIRS 128
#define GV_LOOP_MAX_UC 64 /* unicast entries MAC_TABLE_SET accepts */
#define GV_LOOP_MAX_MC 64 /* multicast entries */

struct gv_loop_stats {
	/* transmit side */
	uint64_t tx_chains; /* TX chains taken from the rings */
	uint64_t tx_packets; /* frames handed to delivery (after segmentation) */
	uint64_t tx_csum; /* NEEDS_CSUM checksums completed */
	uint64_t tx_gso; /* GSO packets segmented */
	/* receive side */
	uint64_t rx_delivered; /* frames written into RX buffers */
	uint64_t rx_lro; /* of which delivered whole with gso_type set */
	uint64_t rx_queue[GV_LOOP_MAX_PAIRS]; /* delivered per RX queue */
	/* drops, by reason */
	uint64_t drop_no_buffer; /* no RX buffer (or the RX queue is not running) */
	uint64_t drop_too_big; /* does not fit the buffers, or above the MTU */
	uint64_t drop_mac; /* destination MAC filtered */
	uint64_t drop_vlan; /* VLAN id not in the filter table */
	uint64_t drop_bad_hdr; /* bad virtio-net header or unparsable GSO packet */
	uint64_t drop_link_down; /* transmitted while the link was down */
	uint64_t bad_chains; /* malformed chains (the device queue then stops) */
	/* control queue */
	uint64_t ctrl_ok;
	uint64_t ctrl_err;
	/* state */
	uint64_t features; /* negotiated */
	uint16_t status; /* config status: bit 0 LINK_UP, bit 1 ANNOUNCE */
	uint8_t mac[6]; /* config mac (MAC_ADDR_SET) */
	bool promisc;
	bool allmulti;
	uint32_t n_uc, n_mc;
	uint8_t uc[GV_LOOP_MAX_UC][6];
	uint8_t mc[GV_LOOP_MAX_MC][6];
	uint64_t vlan[4096 / 64]; /* VLAN filter bitmap */
	uint16_t vq_pairs; /* VQ_PAIRS_SET (or RSS max_tx_vq) */
	bool rss; /* RSS_CONFIG in force */
	uint32_t hash_types; /* of RSS (or HASH_CONFIG without RSS) */
	uint16_t rss_table_len;
};

/*
 * Set the link up or down (config status LINK_UP) and raise a config
 * change (gv_config_changed: the port's link is refreshed, and with
 * intr_conf.lsc RTE_ETH_EVENT_INTR_LSC is delivered, on this thread).
 * While the link is down the device drops what is transmitted.
 */
int rte_pmd_gvirtio_loop_set_link(uint16_t port, bool up);

/*
 * Ask the driver to announce itself (config status ANNOUNCE) and raise a
 * config change; the bit stays set until the driver's ANNOUNCE_ACK.
 */
int rte_pmd_gvirtio_loop_announce(uint16_t port);

/*
 * The device sets DEVICE_NEEDS_RESET and raises a config interrupt: it
 * stops serving the rings until the driver resets it; the driver pauses
 * its queues, reports the link down (LSC) and RTE_ETH_EVENT_INTR_RESET
 * (callbacks run on this thread).
 */
int rte_pmd_gvirtio_loop_needs_reset(uint16_t port);

/*
 * With `on`, the device publishes a packet it spreads over several RX
 * buffers in two steps when it is the last of a run: all but its last
 * buffer at once, the last one at the device's next run (the next TX
 * notify). The driver sees part of a packet in between.
 */
int rte_pmd_gvirtio_loop_rx_hold(uint16_t port, bool on);

/* The device's counters and filter state. */
int rte_pmd_gvirtio_loop_stats(uint16_t port, struct gv_loop_stats *out);

/* Toeplitz hash (RSS), exposed for tests: key of klen bytes over in[n]. */
uint32_t gv_loop_toeplitz(const uint8_t *key, uint32_t klen, const uint8_t *in, uint32_t n);

#ifdef __cplusplus
}
#endif

#endif /* GV_LOOP_H */
