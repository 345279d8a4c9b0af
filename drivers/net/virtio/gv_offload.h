/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_offload.h - offload capabilities, the features they need, and the
 * per-packet header work of the full paths (see gv_offload.c).
 */
#ifndef GV_OFFLOAD_H
#define GV_OFFLOAD_H

#include <ethdev_driver.h>

#include "gv_queue.h"

/* What the device's (offered or negotiated) features let us offer. */
uint64_t gv_tx_offload_capa(uint64_t features);
uint64_t gv_rx_offload_capa(uint64_t features);
/* Feature bits the app's enabled offloads need, and no more. */
uint64_t gv_offload_features(uint64_t rx_offloads, uint64_t tx_offloads);

/* eth_dev_ops.vlan_offload_set */
int gv_vlan_offload_set(struct rte_eth_dev *dev, int mask);

/* Offloads every path supports (done in software or without the header). */
#define GV_RX_OFFLOAD_SIMPLE (RTE_ETH_RX_OFFLOAD_SCATTER | RTE_ETH_RX_OFFLOAD_VLAN_FILTER)
#define GV_RX_OFFLOAD_ALL                                                      \
	(RTE_ETH_RX_OFFLOAD_SCATTER | RTE_ETH_RX_OFFLOAD_VLAN_STRIP |            \
	 RTE_ETH_RX_OFFLOAD_VLAN_FILTER |                                        \
	 RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |           \
	 RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_RSS_HASH)
#define GV_TX_OFFLOAD_ALL                                                      \
	(RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_VLAN_INSERT |        \
	 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |          \
	 RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO)

uint16_t gv_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t n);
void gv_tx_fill_hdr(struct gv_net_hdr *h, const struct rte_mbuf *m);
void gv_rx_offload(const struct gv_rxq *rxq, struct rte_mbuf *m, const struct gv_net_hdr *h);

#endif /* GV_OFFLOAD_H */
