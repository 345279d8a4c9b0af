/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rss.h - RSS by the device: limits, state, the ethdev ops (gv_rss.c).
 */
#ifndef GV_RSS_H
#define GV_RSS_H

#include <ethdev_driver.h>

#include "gv_pmd.h"

/* Read the device's RSS limits if `features` has RSS (before or after negotiation). */
void gv_rss_init(struct rte_eth_dev *dev, uint64_t features);
/* At configure: key, types and an even indirection table from rte_eth_conf. */
int gv_rss_configure(struct rte_eth_dev *dev);
/* Send the RSS state to a started device. */
int gv_rss_apply(struct rte_eth_dev *dev);
void gv_rss_infos(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);

int gv_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int gv_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf);
int gv_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size);
int gv_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size);

#endif /* GV_RSS_H */
