/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_ctrl.h - the virtio-net control queue, driver side (virtio 1.2
 * 5.1.6.5): one command at a time, an answer within a bounded time or an
 * error, never a hang. A transport may handle commands itself (vhost-user:
 * the back-end has no control queue, so the front-end acts on them).
 */
#ifndef GV_CTRL_H
#define GV_CTRL_H

#include <stdint.h>

#include <ethdev_driver.h>

#include "gv_queue.h"

#define GV_CTRL_RX 0
#define GV_CTRL_RX_PROMISC 0
#define GV_CTRL_RX_ALLMULTI 1
#define GV_CTRL_MAC 1
#define GV_CTRL_MAC_TABLE_SET 0
#define GV_CTRL_MAC_ADDR_SET 1
#define GV_CTRL_VLAN 2
#define GV_CTRL_VLAN_ADD 0
#define GV_CTRL_VLAN_DEL 1
#define GV_CTRL_ANNOUNCE 3
#define GV_CTRL_ANNOUNCE_ACK 0
#define GV_CTRL_MQ 4
#define GV_CTRL_MQ_VQ_PAIRS_SET 0
#define GV_CTRL_MQ_RSS_CONFIG 1

#define GV_CTRL_OK 0
#define GV_CTRL_ERR 1

#define GV_CTRL_DATA_MAX 4096 /* largest command payload (MAC tables, RSS) */
/* How long a command waits for its answer (the PMD fuzzer builds with 1 ms). */
#ifndef GV_CTRL_TIMEOUT_MS
#define GV_CTRL_TIMEOUT_MS 1000
#endif

/* A command's payload in up to a few pieces (sent as separate segments). */
struct gv_ctrl_part {
	const void *data;
	uint32_t len;
};

/* Set up (at configure, after negotiation) / free the control queue. */
int gv_ctrl_setup(struct rte_eth_dev *dev);
void gv_ctrl_release(struct gv_hw *hw);

/*
 * Send one command and wait for the device's answer.
 * 0: OK; -EIO: the device answered ERR; -ETIMEDOUT: no answer in time
 * (the queue is then unusable until the next configure); -ENOTSUP: no
 * control queue; -ENOTCONN: the device is gone.
 */
int gv_ctrl_cmd(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const struct gv_ctrl_part *parts,
		unsigned int n_parts);

/* The ethdev ops built on it. */
int gv_promiscuous_enable(struct rte_eth_dev *dev);
int gv_promiscuous_disable(struct rte_eth_dev *dev);
int gv_allmulticast_enable(struct rte_eth_dev *dev);
int gv_allmulticast_disable(struct rte_eth_dev *dev);
int gv_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *mac, uint32_t index,
		    uint32_t vmdq);
void gv_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index);
int gv_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac);
int gv_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc, uint32_t n);
int gv_vlan_filter_set(struct rte_eth_dev *dev, uint16_t vid, int on);
/* Tell the device how many queue pairs to use (MQ), at start. */
int gv_ctrl_set_pairs(struct rte_eth_dev *dev, uint16_t pairs);
/* The control virtqueue, if the driver runs one (for setup at start). */
struct gv_queue *gv_ctrl_queue(struct gv_hw *hw);
/* After the device stopped: forget what was in flight. */
void gv_ctrl_reset(struct gv_hw *hw);
/* At start: apply pairs, RX modes, MAC tables, VLAN filters. */
int gv_ctrl_replay(struct rte_eth_dev *dev);

#endif /* GV_CTRL_H */
