/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_stats.c - basic stats, per-queue stats and xstats. The xstats are
 * described by tables (name, where the value lives), so names and values
 * come from the same rows:
 *   rx_path, tx_path               the chosen paths (enum gv_rx/tx_path_id)
 *   {rx,tx}_qN_<counter>           per-queue traffic counters
 *   {rx,tx}_qN_<hardening counter> bad values the device wrote (core)
 */
#include <stdio.h>
#include <string.h>

#include "gv_queue.h"
#include "gv_stats.h"

struct xrow {
	const char *name;
	size_t off;
};

#define QS(field) offsetof(struct gv_qstats, field)
static const struct xrow q_rows[] = {
	{ "good_packets", QS(packets) },
	{ "good_bytes", QS(bytes) },
	{ "errors", QS(errors) },
	{ "multicast_packets", QS(multicast) },
	{ "broadcast_packets", QS(broadcast) },
	{ "undersize_packets", QS(size_bins[0]) },
	{ "size_64_packets", QS(size_bins[1]) },
	{ "size_65_127_packets", QS(size_bins[2]) },
	{ "size_128_255_packets", QS(size_bins[3]) },
	{ "size_256_511_packets", QS(size_bins[4]) },
	{ "size_512_1023_packets", QS(size_bins[5]) },
	{ "size_1024_1518_packets", QS(size_bins[6]) },
	{ "size_1519_max_packets", QS(size_bins[7]) },
	{ "notifications", QS(kicks) },
};

#define VS(field) offsetof(struct gv_vq_stats, field)
static const struct xrow hard_rows[] = {
	{ "bad_id", VS(bad_id) },
	{ "id_not_inflight", VS(id_not_inflight) },
	{ "bad_len", VS(bad_len) },
	{ "bad_flags", VS(bad_flags) },
	{ "bad_used_idx", VS(bad_used_idx) },
	{ "bad_order", VS(bad_order) },
};

#define N_Q (RTE_DIM(q_rows) + RTE_DIM(hard_rows))
#define N_PORT 2 /* rx_path, tx_path */

static unsigned int xstats_count(struct rte_eth_dev *dev)
{
	return N_PORT + dev->data->nb_rx_queues * (N_Q + 1u) +
	       (unsigned int)dev->data->nb_tx_queues * N_Q;
}

int gv_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names, unsigned int n)
{
	unsigned int count = xstats_count(dev), k = 0;

	if (!names || n < count)
		return (int)count;
	snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "rx_path");
	snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "tx_path");
	for (int dir = 0; dir < 2; dir++) {
		bool rx = dir == 0;
		uint16_t nq = rx ? dev->data->nb_rx_queues : dev->data->nb_tx_queues;

		for (uint16_t i = 0; i < nq; i++) {
			for (size_t r = 0; r < RTE_DIM(q_rows); r++)
				snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%u_%s",
					 rx ? "rx" : "tx", i, q_rows[r].name);
			for (size_t r = 0; r < RTE_DIM(hard_rows); r++)
				snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s_q%u_%s",
					 rx ? "rx" : "tx", i, hard_rows[r].name);
			if (rx)
				snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "rx_q%u_nombuf", i);
		}
	}
	return (int)k;
}

int gv_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs, unsigned int n)
{
	struct gv_hw *hw = dev->data->dev_private;
	unsigned int count = xstats_count(dev), k = 0;

	if (!xs || n < count)
		return (int)count;
	xs[k].id = k;
	xs[k++].value = dev->data->dev_started ? hw->rx_path : GV_RX_PATH_MAX;
	xs[k].id = k;
	xs[k++].value = dev->data->dev_started ? hw->tx_path : GV_TX_PATH_MAX;
	for (int dir = 0; dir < 2; dir++) {
		bool rx = dir == 0;
		uint16_t nq = rx ? dev->data->nb_rx_queues : dev->data->nb_tx_queues;

		for (uint16_t i = 0; i < nq; i++) {
			struct gv_queue *q = gv_queue_of(dev, rx, i);
			struct gv_vq_stats vs = { 0 };

			if (q && q->vq)
				gv_vq_stats(q->vq, &vs);
			for (size_t r = 0; r < RTE_DIM(q_rows); r++) {
				xs[k].id = k;
				xs[k++].value = q ? *(const uint64_t *)((const char *)&q->st +
									q_rows[r].off)
						  : 0;
			}
			for (size_t r = 0; r < RTE_DIM(hard_rows); r++) {
				xs[k].id = k;
				xs[k++].value = *(const uint64_t *)((const char *)&vs + hard_rows[r].off);
			}
			if (rx) {
				xs[k].id = k;
				xs[k++].value = q ? ((struct gv_rxq *)dev->data->rx_queues[i])->nombuf : 0;
			}
		}
	}
	return (int)k;
}

int gv_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		if (!rxq)
			continue;
		st->ipackets += rxq->q.st.packets;
		st->ibytes += rxq->q.st.bytes;
		st->ierrors += rxq->q.st.errors;
		st->rx_nombuf += rxq->nombuf;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[i] = rxq->q.st.packets;
			st->q_ibytes[i] = rxq->q.st.bytes;
			st->q_errors[i] = rxq->q.st.errors;
		}
	}
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++) {
		struct gv_txq *txq = dev->data->tx_queues[i];

		if (!txq)
			continue;
		st->opackets += txq->q.st.packets;
		st->obytes += txq->q.st.bytes;
		st->oerrors += txq->q.st.errors;
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_opackets[i] = txq->q.st.packets;
			st->q_obytes[i] = txq->q.st.bytes;
		}
	}
	return 0;
}

int gv_stats_reset(struct rte_eth_dev *dev)
{
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		if (rxq) {
			memset(&rxq->q.st, 0, sizeof(rxq->q.st));
			rxq->nombuf = 0;
		}
	}
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++) {
		struct gv_txq *txq = dev->data->tx_queues[i];

		if (txq)
			memset(&txq->q.st, 0, sizeof(txq->q.st));
	}
	return 0;
}
