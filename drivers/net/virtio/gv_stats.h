/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_stats.h - basic stats, per-queue stats and xstats of a gvirtio port.
 */
#ifndef GV_STATS_H
#define GV_STATS_H

#include <ethdev_driver.h>

int gv_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats);
int gv_stats_reset(struct rte_eth_dev *dev);
int gv_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n);
int gv_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names, unsigned int n);

#endif /* GV_STATS_H */
