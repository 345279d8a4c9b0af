/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_link.c - link state and device config changes: the link as ethdev
 * reports it (transport up, and the config status when STATUS is
 * negotiated), link-change events, and the announcement a device asks
 * for after a live migration (GUEST_ANNOUNCE): a RARP from our MAC on
 * TX queue 0, so switches learn where we are, then ANNOUNCE_ACK.
 */
#include <string.h>

#include <rte_arp.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gv_ctrl.h"
#include "gv_queue.h"

static uint16_t config_status(struct gv_hw *hw)
{
	uint16_t st = 0;

	if (!gv_has(hw, GV_NET_F_STATUS) ||
	    gv_ops(hw)->read_config(hw, GV_NET_CFG_STATUS, &st, sizeof(st)))
		return GV_NET_S_LINK_UP; /* no status: the link is up when the device is */
	return st;
}

int gv_link_refresh(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct rte_eth_link link = { 0 };

	link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	link.link_autoneg = RTE_ETH_LINK_FIXED;
	link.link_speed = hw->speed ? hw->speed : RTE_ETH_SPEED_NUM_UNKNOWN;
	link.link_status = dev->data->dev_started && gv_ops(hw) && gv_ops(hw)->link_up(hw) &&
					   (config_status(hw) & GV_NET_S_LINK_UP)
				   ? RTE_ETH_LINK_UP
				   : RTE_ETH_LINK_DOWN;
	return rte_eth_linkstatus_set(dev, &link);
}

/* A gratuitous RARP from our MAC (what switches relearn a MAC from). */
static struct rte_mbuf *make_rarp(struct rte_mempool *mp, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *arp;
	uint16_t len = sizeof(*eh) + sizeof(*arp);

	if (!m)
		return NULL;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	memset(&eh->dst_addr, 0xff, RTE_ETHER_ADDR_LEN);
	rte_ether_addr_copy(mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_RARP);
	arp = (struct rte_arp_hdr *)(eh + 1);
	memset(arp, 0, sizeof(*arp));
	arp->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	arp->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	arp->arp_hlen = RTE_ETHER_ADDR_LEN;
	arp->arp_plen = 4;
	arp->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REVREQUEST);
	rte_ether_addr_copy(mac, &arp->arp_data.arp_sha);
	rte_ether_addr_copy(mac, &arp->arp_data.arp_tha);
	m->data_len = m->pkt_len = RTE_MAX(len, (uint16_t)RTE_ETHER_MIN_LEN - RTE_ETHER_CRC_LEN);
	memset((char *)eh + len, 0, m->data_len - len);
	return m;
}

/*
 * Send the RARP on TX queue 0: the queue is paused (the app's lcore
 * finishes its burst first) so this thread can use it, then resumed.
 */
static int announce(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_txq *txq = dev->data->nb_tx_queues ? dev->data->tx_queues[0] : NULL;
	struct gv_rxq *rxq = dev->data->nb_rx_queues ? dev->data->rx_queues[0] : NULL;
	struct rte_mbuf *m;
	uint16_t sent = 0;

	if (!txq || !rxq || !hw->started)
		return -ENODEV;
	m = make_rarp(rxq->mp, &hw->mac);
	if (!m)
		return -ENOMEM;
	gv_queue_pause(&txq->q);
	sent = gv_tx_owned(txq, &m, 1);
	gv_queue_resume(&txq->q);
	if (!sent) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	return gv_ctrl_cmd(hw, GV_CTRL_ANNOUNCE, GV_CTRL_ANNOUNCE_ACK, NULL, 0);
}

void gv_config_changed(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct rte_eth_link before, after;
	int ret;

	rte_eth_linkstatus_get(dev, &before);
	gv_link_refresh(dev);
	rte_eth_linkstatus_get(dev, &after);
	if (before.link_status != after.link_status && dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	if (hw->started && gv_has(hw, GV_NET_F_GUEST_ANNOUNCE) &&
	    (config_status(hw) & GV_NET_S_ANNOUNCE)) {
		ret = announce(dev);
		if (ret)
			GV_LOG(ERR, "%s: announce after migration failed: %s", hw->name,
			       strerror(-ret));
		else
			GV_LOG(INFO, "%s: announced %02x:%02x:%02x:%02x:%02x:%02x after migration",
			       hw->name, hw->mac.addr_bytes[0], hw->mac.addr_bytes[1],
			       hw->mac.addr_bytes[2], hw->mac.addr_bytes[3], hw->mac.addr_bytes[4],
			       hw->mac.addr_bytes[5]);
	}
}
