/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_intr.c - RX interrupt mode against DPDK's vhost-user back-end:
 * a thread that sleeps in rte_epoll_wait on a gvirtio RX queue is woken
 * when the back-end sends, and then receives the packets; with interrupts
 * disabled again the queue polls as before. Split and packed, on the
 * scalar mergeable path and on the vector RX path (vectorized=1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>

#include "gv_pmd_harness.h"

#define NPKT 64

struct waiter {
	uint16_t port;
	int ready; /* interrupts armed, about to sleep (atomic) */
	int n_events; /* what rte_epoll_wait returned */
	double woke; /* when it returned */
	int ctl_ret, en_ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct rte_epoll_event ev[1];

	w->ctl_ret = rte_eth_dev_rx_intr_ctl_q(w->port, 0, RTE_EPOLL_PER_THREAD,
					       RTE_INTR_EVENT_ADD, NULL);
	w->en_ret = rte_eth_dev_rx_intr_enable(w->port, 0);
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	if (w->ctl_ret || w->en_ret)
		return NULL;
	/* Sleeps until the device signals the queue (bounded: 10 s). */
	w->n_events = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 1, 10000);
	w->woke = gvh_now();
	rte_eth_dev_rx_intr_disable(w->port, 0);
	rte_eth_dev_rx_intr_ctl_q(w->port, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_DEL, NULL);
	return NULL;
}

static void rx_interrupt_wakes(const char *args)
{
	struct rte_mempool *mp = gvh_pool(4096);
	struct gvh_port_conf c = { .mp = mp };
	struct gvh_port_conf gc = { .mp = mp, .nb_desc = 256, .intr_rxq = true };
	struct gvh_pair p;
	struct waiter w = { 0 };
	pthread_t th;
	uint16_t got = 0;
	double deadline, sent_at;

	assert_non_null(mp);
	gvh_pair_init(&p);
	if (gvh_vhost_add(&p, false, &c) ||
	    gvh_gv_add(&p, args, &gc) ||
	    gvh_pair_start(&p, 10.0))
		fail_msg("%s", gvh_error());

	w.port = p.gv;
	assert_int_equal(pthread_create(&th, NULL, wait_thread, &w), 0);
	if (gvh_wait_count(&w.ready, 1, 10.0, "the waiter armed"))
		fail_msg("%s", gvh_error());
	assert_int_equal(w.ctl_ret, 0);
	assert_int_equal(w.en_ret, 0);

	/* The back-end sends: the device must wake the sleeper. */
	sent_at = gvh_now();
	for (uint64_t seq = 0; seq < NPKT;) {
		struct rte_mbuf *m = gvh_pkt_alloc(mp, seq, 128);

		assert_non_null(m);
		if (rte_eth_tx_burst(p.vh, 0, &m, 1) == 1)
			seq++;
		else
			rte_pktmbuf_free(m);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.n_events, 1);
	/* It slept until the traffic came, not woken by something stale. */
	assert_true(w.woke >= sent_at);

	/* And the packets are there, in order. */
	deadline = gvh_now() + 5.0;
	while (got < NPKT && gvh_now() < deadline) {
		struct rte_mbuf *m[32];
		uint16_t n = rte_eth_rx_burst(p.gv, 0, m, 32);

		for (uint16_t i = 0; i < n; i++) {
			assert_int_equal(gvh_pkt_check(m[i], got + i, 128), 0);
			rte_pktmbuf_free(m[i]);
		}
		got += n;
	}
	assert_int_equal(got, NPKT);
	gvh_pair_destroy(&p);
	assert_true(gvh_pool_full(mp));
	rte_mempool_free(mp);
}

static void test_rx_intr_split(void **state)
{
	(void)state;
	rx_interrupt_wakes("packed_vq=0");
	rx_interrupt_wakes("packed_vq=0,mrg_rxbuf=0,vectorized=1");
}

static void test_rx_intr_packed(void **state)
{
	(void)state;
	rx_interrupt_wakes("packed_vq=1");
	rx_interrupt_wakes("packed_vq=1,mrg_rxbuf=0,vectorized=1");
}

int main(void)
{
	static const char *const levels[] = { "pmd.net.gvirtio:info", "lib.vhost.*:error", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_intr_split),
		cmocka_unit_test(test_rx_intr_packed),
	};
	int ret;

	if (gvh_eal_init("gvintr", levels) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", gvh_error());
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	gvh_cleanup();
	return ret;
}
