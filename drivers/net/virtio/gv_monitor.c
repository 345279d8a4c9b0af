/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_monitor.c - rte_eth_get_monitor_addr: where an RX queue's next
 * packet will show, so that DPDK's power management (rte_power_monitor,
 * l3fwd-power's monitor mode) can sleep until the device writes there.
 * The ring core says which word to watch and what it means
 * (gv_vq_watch); this file turns that into ethdev's condition.
 */
#include <ethdev_driver.h>
#include <rte_power_intrinsics.h>

#include "gv_queue.h"

/* opaque: { mask, value, when_equal }. -1: something is waiting, do not sleep. */
static int gv_monitor_check(const uint64_t val, const uint64_t opaque[RTE_POWER_MONITOR_OPAQUE_SZ])
{
	const bool equal = (val & opaque[0]) == opaque[1];

	return equal == (opaque[2] != 0) ? -1 : 0;
}

/*
 * On the queue's own thread, like its bursts (DPDK's power management
 * calls it from an RX callback). No condition (-EAGAIN, and the caller
 * does not sleep on it) for a queue the control path holds (start,
 * restart) or on a stopped port (its ring is drained).
 */
int gv_get_monitor_addr(void *q, struct rte_power_monitor_cond *pmc)
{
	struct gv_rxq *rxq = q;
	struct gv_vq_watch w;
	bool up;

	if (!gv_queue_enter(&rxq->q))
		return -EAGAIN;
	/* Stable while we hold the queue: start and stop pause it to change it. */
	up = rxq->q.hw->started;
	if (up)
		gv_vq_watch(rxq->q.vq, &w);
	gv_queue_exit(&rxq->q);
	if (!up)
		return -EAGAIN;
	pmc->addr = w.addr;
	pmc->size = sizeof(uint16_t);
	pmc->fn = gv_monitor_check;
	pmc->opaque[0] = w.mask;
	pmc->opaque[1] = w.value;
	pmc->opaque[2] = w.when_equal;
	return 0;
}
