/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_secondary.c - a gvirtio port seen from a DPDK secondary process
 * (dpdk-proc-info, dpdk-pdump, an application's own secondaries). The
 * port, its queues and their counters live in memory the processes
 * share; the primary alone drives the device (configure, start, stop,
 * control commands, the vhost-user connection, interrupts). A secondary
 * gets device info, the link as the primary last saw it, stats and
 * xstats (and their reset), burst modes and queue info, and, where its
 * transport can notify the device from this process, the bursts of the
 * paths the primary chose. What the bursts call on the transport goes
 * through this process's own ops (gv_tp_table), installed by the
 * transport's probe before it calls gv_secondary_attach().
 */
#include <errno.h>

#include <ethdev_driver.h>

#include "gv_offload.h"
#include "gv_path.h"
#include "gv_queue.h"
#include "gv_stats.h"

static int sec_link_update(struct rte_eth_dev *dev, int wait)
{
	/* dev->data->dev_link is shared: the primary keeps it current. */
	(void)dev;
	(void)wait;
	return 0;
}

static int sec_close(struct rte_eth_dev *dev)
{
	/* The port is the primary's: this process only lets go of it. */
	(void)dev;
	return 0;
}

static const struct eth_dev_ops gv_secondary_ops = {
	.dev_infos_get = gv_dev_infos_get,
	.dev_close = sec_close,
	.link_update = sec_link_update,
	.stats_get = gv_stats_get,
	.stats_reset = gv_stats_reset,
	.xstats_get = gv_xstats_get,
	.xstats_get_names = gv_xstats_get_names,
	.xstats_reset = gv_stats_reset,
	.rx_burst_mode_get = gv_rx_burst_mode_get,
	.tx_burst_mode_get = gv_tx_burst_mode_get,
	.rxq_info_get = gv_rxq_info_get,
	.txq_info_get = gv_txq_info_get,
};

int gv_secondary_attach(struct rte_eth_dev *dev, bool datapath)
{
	struct gv_hw *hw = dev->data->dev_private;

	dev->dev_ops = &gv_secondary_ops;
	/*
	 * The paths the primary chose at its start (a start after this one
	 * is not seen here, as with every PMD's secondary: ethdev copies the
	 * burst functions once, at rte_eth_dev_probing_finish).
	 */
	gv_path_install(dev, datapath && dev->data->dev_started);
	rte_eth_dev_probing_finish(dev);
	GV_LOG(INFO, "%s: port %u attached in a secondary process (%s)", hw->name,
	       dev->data->port_id,
	       !datapath		  ? "info and stats; no RX/TX from here"
	       : dev->data->dev_started ? "RX/TX on the primary's paths"
					  : "port stopped: no RX/TX until reattached");
	return 0;
}

int gv_secondary_remove(struct rte_eth_dev *dev)
{
	return rte_eth_dev_release_port(dev);
}
