/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fault_cycles.c - GV_FAULT_CYCLES (default 1000) whole port lives
 * on the loopback device (net_gvirtio_loop): probe, configure with 1 to 4
 * queue pairs and rings of 64 to 1024 entries (split or packed), start,
 * traffic on every queue, stop, a second configure with other counts and
 * sizes, start, traffic, stop, close and hot-unplug. After each cycle
 * every mbuf is back; between cycle 100 and the last the process's open
 * file descriptors (/proc/self/fd) must not grow at all and its resident
 * memory (/proc/self/statm) by at most a small bound. The same over
 * vhost-user (net_gvirtio_user against DPDK's net_vhost in this process,
 * GV_FAULT_CYCLES_VHOST, default 1000): sockets and eventfds come and go
 * with every cycle. Built with ASan (build-asan), LeakSanitizer checks the
 * whole run at exit.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>

#include <rte_malloc.h>

#include "gv_pmd_harness.h"
#include "gv_test_loop.h"

static unsigned int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own fd */
}

/* "fd:target " for each open fd (what a leak is, when the count grows). */
static void list_fds(char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t off = 0;

	assert_non_null(d);
	buf[0] = '\0';
	while ((e = readdir(d)) != NULL && off + 80 < size) {
		char target[64];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		off += (size_t)snprintf(buf + off, size - off, "%s:%s ", e->d_name, target);
	}
	closedir(d);
}

/* Bytes allocated from EAL's heaps (rte_malloc, memzones): LSan does not see them. */
static uint64_t eal_heap(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	}
	return sum;
}

static uint64_t count_fds64(void)
{
	return count_fds();
}

/*
 * A count once what is closing has closed: DPDK's vhost thread frees a
 * gone front-end's fds and memory on its own time, and its threads open
 * and close fds of their own for a moment. A value counts once it has
 * stayed the same for STEADY_S; polled (bounded by max_s) until a steady
 * value is at most `target` (0: any steady value). Returns that value,
 * else the lowest steady value seen (else the last read).
 */
#define STEADY_S 0.2
static uint64_t settled(uint64_t (*fn)(void), uint64_t target, double max_s)
{
	const uint64_t hz = rte_get_timer_hz();
	const uint64_t end = rte_get_timer_cycles() + (uint64_t)(max_s * (double)hz);
	uint64_t v = fn(), since = rte_get_timer_cycles(), best = UINT64_MAX;

	while (rte_get_timer_cycles() < end) {
		uint64_t n = fn(), now = rte_get_timer_cycles();

		if (n != v) {
			v = n;
			since = now;
		} else if (now - since >= (uint64_t)(STEADY_S * (double)hz)) {
			best = RTE_MIN(best, v);
			if (target == 0 || v <= target)
				return v;
		}
		sched_yield();
	}
	return best != UINT64_MAX ? best : v;
}

static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, res = 0;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu %lu", &size, &res), 2);
	fclose(f);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t rng = 0x5eed;
static struct rte_mempool *rxp; /* RX: 4 rings of 1024 */

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

/*
 * vhost-user: frames from gvirtio to the back-end and back on every queue
 * pair (the back-end's link up first); 0 for the loopback device.
 */
static uint16_t vh_port = GVH_NO_PORT;

static void vhost_traffic(const struct port *p, uint16_t nq)
{
	if (gvh_wait_link(vh_port, true, 10.0) || gvh_wait_link(p->id, true, 10.0))
		fail_msg("%s", gvh_error());
	for (uint16_t q = 0; q < nq; q++) {
		struct rte_mbuf *m[8], *r[32];
		uint16_t got = 0, sent = 0;
		double end = gvh_now() + 10.0;

		for (int i = 0; i < 8; i++) {
			m[i] = gvh_pkt_alloc(mp, (uint64_t)i, 100 + 50 * q);
			assert_non_null(m[i]);
		}
		while (sent < 8 && gvh_now() < end)
			sent += rte_eth_tx_burst(p->id, q, m + sent, 8 - sent);
		while (got < 8 && gvh_now() < end) {
			uint16_t n = rte_eth_rx_burst(vh_port, q, r, 32), k = 0;

			/* Back the way it came, on the same pair. */
			while (k < n && gvh_now() < end)
				k += rte_eth_tx_burst(vh_port, q, r + k, n - k);
			got += n;
		}
		if (got != 8)
			fail_msg("queue %u: %u of 8 frames reached the back-end", q, got);
		for (got = 0; got < 8 && gvh_now() < end;) {
			uint16_t n = rte_eth_rx_burst(p->id, q, r, 32);

			for (uint16_t i = 0; i < n; i++)
				assert_int_equal(gvh_pkt_check(r[i], got + i, 100 + 50 * q), 0);
			free_all(r, n);
			got += n;
		}
		if (got != 8)
			fail_msg("queue %u: %u of 8 frames came back", q, got);
	}
}

/* Configure nq pairs of nd descriptors, start, frames on every TX queue back. */
static void one_config(const struct port *p, uint16_t nq, uint16_t nd)
{
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	unsigned int rx = 0;

	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(p->id, nq, nq, &conf), 0);
	for (uint16_t q = 0; q < nq; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(p->id, q, nd, SOCKET_ID_ANY, NULL, rxp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(p->id, q, nd, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(p->id), 0);
	rte_eth_macaddr_get(p->id, &mac);
	if (vh_port != GVH_NO_PORT)
		vhost_traffic(p, nq);
	for (uint16_t q = 0; vh_port == GVH_NO_PORT && q < nq; q++) {
		struct rte_mbuf *tx[8];

		for (int i = 0; i < 8; i++)
			tx[i] = frame(mp, &mac, flen(q * 8 + i), q * 8u + i, -1);
		send_all(p, q, tx, 8);
	}
	for (uint16_t q = 0; vh_port == GVH_NO_PORT && q < nq; q++) {
		struct rte_mbuf *r[64];
		uint16_t n = recv_all(p, q, r, 64);

		rx += n;
		free_all(r, n);
	}
	if (vh_port == GVH_NO_PORT)
		assert_int_equal(rx, 8u * nq);
	assert_int_equal(rte_eth_dev_stop(p->id), 0);
	if (rte_mempool_avail_count(rxp) != rxp->size || rte_mempool_avail_count(mp) != mp->size)
		fail_msg("RX %u of %u, TX %u of %u mbufs back after stop (%u pairs, %u descriptors)",
			 rte_mempool_avail_count(rxp), rxp->size, rte_mempool_avail_count(mp),
			 mp->size, nq, nd);
}

/* n cycles; `path`: vhost-user (net_gvirtio_user), NULL: the loopback device. */
static void cycles(unsigned int n, const char *path)
{
	uint64_t fd100 = 0, fd_max = 0, heap100 = 0, heap_max = 0;
	uint64_t rss100 = 0, rss_max = 0, rss_end;
	char fds100[2048];
	uint64_t t0 = rte_get_timer_cycles();

	assert_true(n > 100);
	for (unsigned int i = 0; i < n; i++) {
		char args[96];
		struct port p;

		snprintf(args, sizeof(args), "queues=4,queue_size=1024,packed_vq=%u,mrg_rxbuf=%u",
			 rnd(2), rnd(2));
		if (path) {
			char buf[300];

			snprintf(p.name, sizeof(p.name), "net_gvirtio_user%u", i);
			snprintf(buf, sizeof(buf), "%s,path=%s,%s", p.name, path, args);
			assert_int_equal(rte_dev_probe(buf), 0);
			assert_int_equal(rte_eth_dev_get_port_by_name(p.name, &p.id), 0);
		} else {
			assert_int_equal(port_probe(&p, args), 0);
		}
		one_config(&p, (uint16_t)(1 + rnd(4)), (uint16_t)(64u << rnd(5)));
		one_config(&p, (uint16_t)(1 + rnd(4)), (uint16_t)(64u << rnd(5)));
		assert_int_equal(rte_eth_dev_close(p.id), 0);
		assert_int_equal(rte_eal_hotplug_remove("vdev", p.name), 0);
		if (path && gvh_wait_link(vh_port, false, 10.0))
			fail_msg("cycle %u: %s", i, gvh_error());
		assert_false(rte_eth_dev_is_valid_port(p.id));
		assert_int_equal(rte_mempool_avail_count(mp), mp->size);
		assert_int_equal(rte_mempool_avail_count(rxp), rxp->size);
		if (i == 99) {
			fd100 = settled(count_fds64, 0, 5.0);
			heap100 = settled(eal_heap, 0, 5.0);
			rss100 = rss_bytes();
		}
		if (i == 99)
			list_fds(fds100, sizeof(fds100));
		if (i >= 99 && (i + 1) % 100 == 0) {
			fd_max = RTE_MAX(fd_max, settled(count_fds64, fd100, 5.0));
			if (fd_max > fd100) {
				char now[2048];

				list_fds(now, sizeof(now));
				fail_msg("cycle %u: %" PRIu64 " fds, %" PRIu64 " at cycle 100\n"
					 "  at cycle 100: %s\n  now: %s", i + 1, fd_max, fd100,
					 fds100, now);
			}
			heap_max = RTE_MAX(heap_max, settled(eal_heap, heap100, 5.0));
			rss_max = RTE_MAX(rss_max, rss_bytes());
		}
	}
	rss_end = rss_bytes();
	print_message("  %s: %u cycles in %.1f s; at cycle 100 and at most at each 100th after: "
		      "fds %" PRIu64 ", %" PRIu64 "; EAL heap %" PRIu64 ", %" PRIu64 " bytes; RSS "
		      "%.1f, %.1f MB (%.1f MB at the end)\n", path ? "vhost-user" : "loop", n,
		      (double)(rte_get_timer_cycles() - t0) / (double)rte_get_timer_hz(), fd100,
		      fd_max, heap100, heap_max, rss100 / 1e6, rss_max / 1e6, rss_end / 1e6);
	/* No fd and no byte of EAL heap more than at cycle 100. */
	assert_int_equal(fd_max, fd100);
	assert_int_equal(heap_max, heap100);
	/* RSS: allocator caches swing by a few MB; a leak of 8 KB a cycle would not fit. */
	if (rss_max > rss100 + 8 * 1024 * 1024)
		fail_msg("RSS grew by %.1f MB between cycle 100 and %u", (rss_max - rss100) / 1e6, n);
}

static unsigned int env_count(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 0) : def;
}

static void test_cycles_loop(void **state)
{
	(void)state;
	cycles(env_count("GV_FAULT_CYCLES", 1000), NULL);
}

static void test_cycles_vhost(void **state)
{
	char sock[200], args[300];
	struct rte_eth_conf conf;
	const char *dir = gvh_sock_dir();
	struct rte_mempool *vmp = gvh_pool(4 * 1024 + 511);

	(void)state;
	assert_non_null(dir);
	assert_non_null(vmp);
	/* The back-end: 4 queue pairs, listening. */
	snprintf(sock, sizeof(sock), "%s/cyc.sock", dir);
	snprintf(args, sizeof(args), "net_vhost_cyc,iface=%s,client=0,queues=4", sock);
	assert_int_equal(rte_dev_probe(args), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_vhost_cyc", &vh_port), 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(vh_port, 4, 4, &conf), 0);
	for (uint16_t q = 0; q < 4; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(vh_port, q, 1024, SOCKET_ID_ANY, NULL, vmp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(vh_port, q, 1024, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(vh_port), 0);
	cycles(env_count("GV_FAULT_CYCLES_VHOST", 1000), sock);
	assert_int_equal(rte_eth_dev_stop(vh_port), 0);
	assert_int_equal(rte_mempool_avail_count(vmp), vmp->size);
	gvh_port_remove(&vh_port);
	vh_port = GVH_NO_PORT;
	rte_mempool_free(vmp);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles_loop),
		cmocka_unit_test(test_cycles_vhost),
	};
	int ret;

	(void)argc;
	if (gvl_eal_init(argv[0]))
		return 1;
	rte_log_set_level_pattern("pmd.net.gvirtio", RTE_LOG_WARNING);
	rxp = rte_pktmbuf_pool_create("cyc_rx", 4 * 1024 + 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				      SOCKET_ID_ANY);
	if (!rxp)
		return 1;
	rte_log_set_level_pattern("lib.vhost.*", RTE_LOG_ERR);
	rte_log_set_level_pattern("pmd.net.vhost", RTE_LOG_ERR);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	gvh_cleanup();
	rte_mempool_free(rxp);
	rte_mempool_free(mp);
	rte_mempool_free(mp_big);
	rte_eal_cleanup();
	return ret;
}
