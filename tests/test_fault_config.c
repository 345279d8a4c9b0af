/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fault_config.c - unsupported configurations and bad devargs: each
 * fails with a negative return and a log line naming the cause (rte_log
 * is captured into memory and searched), and the process goes on: after
 * every case the same port is configured correctly, started, carries
 * traffic and stops with every mbuf back.
 *
 * On the loopback device: too many queue pairs, MTU above the device's
 * maximum (configure and set_mtu), ring sizes out of range, a NULL pool,
 * mbufs too small for any frame, mbufs too small for the MTU without
 * mergeable buffers, a queue left without set-up, RSS from a device
 * without it, a queue id out of range, a forced path that cannot serve
 * the configuration. Against DPDK's net_vhost (no TSO offered): TSO and
 * LRO. Every bad devarg of net_gvirtio_user and net_gvirtio_loop; every
 * devarg of DPDK 22.11's net_virtio_user, under DPDK's names, accepted
 * with its meaning (iface refused, naming the missing transport).
 */
#include <stdlib.h>

#include "gv_pmd_harness.h"
#include "gv_test_loop.h"

/* ---------------------------------------------------------- log capture -- */

/*
 * Some line logged since log_start() holds every one of the (NULL-ended)
 * needles; print it.
 */
static void log_expect(const char *what, ...)
{
	const char *needles[8];
	const char *line, *end;
	int n = 0;
	va_list ap;

	va_start(ap, what);
	while (n < 8 && (needles[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	fflush(log_f);
	for (line = log_buf + log_mark; line < log_buf + log_len; line = end + 1) {
		bool all = true;

		end = strchr(line, '\n');
		if (!end)
			end = log_buf + log_len;
		for (int i = 0; i < n && all; i++) {
			const char *hit = strstr(line, needles[i]);

			all = hit && hit < end;
		}
		if (all) {
			print_message("  %-34s %.*s\n", what, (int)(end - line), line);
			return;
		}
	}
	fail_msg("%s: no log line names the cause (\"%s\"...); logged:\n%.*s", what, needles[0],
		 (int)(log_len - log_mark), log_buf + log_mark);
}

/* `call` fails (returns < 0) and a line logged meanwhile holds every needle. */
#define FAILS(call, what, ...)                                                 \
	do {                                                                   \
		log_start();                                                   \
		assert_true((call) < 0);                                       \
		log_expect(what, __VA_ARGS__, NULL);                           \
	} while (0)

/* ------------------------------------------------------------ the port -- */

static struct rte_mempool *tiny_mp; /* 128-byte data room */
static struct rte_mempool *small_mp; /* 512-byte data room */

/* Configure nq pairs with `conf` and set up the first `setup` of them. */
static void configure(uint16_t port, uint16_t nq, uint16_t setup, const struct rte_eth_conf *conf,
		      struct rte_mempool *pool)
{
	assert_int_equal(rte_eth_dev_configure(port, nq, nq, conf), 0);
	for (uint16_t q = 0; q < setup; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(port, q, 256, SOCKET_ID_ANY, NULL, pool), 0);
		assert_int_equal(rte_eth_tx_queue_setup(port, q, 256, SOCKET_ID_ANY, NULL), 0);
	}
}

/* The process goes on: a good configuration of the same port works. */
static void good_config(uint16_t port, uint16_t nq)
{
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct port p = { .id = port };
	uint16_t got = 0;

	memset(&conf, 0, sizeof(conf));
	configure(port, nq, nq, &conf, mp);
	assert_int_equal(rte_eth_dev_set_mtu(port, RTE_ETHER_MTU), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);
	assert_int_equal(rte_eth_promiscuous_enable(port), 0);
	rte_eth_macaddr_get(port, &mac);
	for (int i = 0; i < 16; i++) {
		struct rte_mbuf *m = frame(mp, &mac, flen((uint32_t)i), (uint32_t)i, -1), *r[4];
		uint16_t n;

		send_all(&p, 0, &m, 1);
		n = recv_all(&p, 0, r, 4);
		got += n;
		free_all(r, n);
	}
	assert_int_equal(got, 16);
	assert_int_equal(rte_eth_dev_stop(port), 0);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
}

static struct port cur = { .id = GVH_NO_PORT };

/* A loopback port for one test; the teardown removes it. */
static uint16_t loop_port(const char *args)
{
	assert_int_equal(port_probe(&cur, args), 0);
	return cur.id;
}

static int port_teardown(void **state)
{
	(void)state;
	if (cur.id != GVH_NO_PORT) {
		rte_eth_dev_stop(cur.id);
		rte_eal_hotplug_remove("vdev", cur.name);
	}
	cur.id = GVH_NO_PORT;
	return 0;
}

static void test_queues(void **state)
{
	uint16_t port = loop_port("queues=2");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	FAILS(rte_eth_dev_configure(port, 3, 3, &conf), "3 queue pairs, the device has 2",
	      "nb_rx_queues=3", "> 2");
	good_config(port, 2);
	/* Configured for 2, set up queue 2. */
	configure(port, 2, 0, &conf, mp);
	FAILS(rte_eth_rx_queue_setup(port, 2, 256, SOCKET_ID_ANY, NULL, mp), "rx queue id 2 of 2",
	      "queue_id=2");
	/* Configured for 2, only queue 0 set up: start refuses. */
	configure(port, 1, 0, &conf, mp);
	configure(port, 2, 1, &conf, mp);
	FAILS(rte_eth_dev_start(port), "queue 1 never set up", "queue 1", "not set up");
	good_config(port, 1);
}

static void test_mtu(void **state)
{
	uint16_t port = loop_port("mtu=4000");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	conf.rxmode.mtu = 4001;
	FAILS(rte_eth_dev_configure(port, 1, 1, &conf), "configure: MTU 4001 > 4000", "4001",
	      "4000");
	good_config(port, 1);
	FAILS(rte_eth_dev_set_mtu(port, 4001), "set_mtu 4001 > 4000", "4001", "4000");
	good_config(port, 1);
	/* Below the minimum. */
	FAILS(rte_eth_dev_set_mtu(port, 20), "set_mtu 20 < 68", "20", "68");
	good_config(port, 1);
}

static void test_ring_sizes(void **state)
{
	uint16_t port = loop_port("queue_size=1024");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	configure(port, 1, 0, &conf, mp);
	FAILS(rte_eth_rx_queue_setup(port, 0, 2048, SOCKET_ID_ANY, NULL, mp), "rx ring 2048 > 1024",
	      "nb_rx_desc(=2048)", "1024");
	FAILS(rte_eth_tx_queue_setup(port, 0, 4096, SOCKET_ID_ANY, NULL), "tx ring 4096 > 1024",
	      "nb_tx_desc(=4096)", "1024");
	FAILS(rte_eth_rx_queue_setup(port, 0, 1, SOCKET_ID_ANY, NULL, mp), "rx ring of 1",
	      "nb_rx_desc(=1)");
	good_config(port, 1);
	/* Not powers of two (split rounds up) and 0 (the default): accepted. */
	assert_int_equal(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(port, 0, 300, SOCKET_ID_ANY, NULL, mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup(port, 0, 0, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);
	assert_int_equal(rte_eth_dev_stop(port), 0);
	good_config(port, 1);
}

static void test_pools(void **state)
{
	uint16_t port = loop_port("mtu=9000,mrg_rxbuf=0");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	configure(port, 1, 0, &conf, mp);
	FAILS(rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, NULL), "no pool", "mempool");
	FAILS(rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, tiny_mp),
	      "mbufs with no room", "mbuf_data_room_size");
	/* 9000-byte frames in 512-byte mbufs without mergeable buffers: 18 a chain. */
	conf.rxmode.mtu = 9000;
	configure(port, 1, 1, &conf, small_mp);
	FAILS(rte_eth_dev_start(port), "MTU 9000, 512-byte mbufs, no MRG", "need", "mbufs",
	      "mrg_rxbuf=1");
	assert_int_equal(rte_mempool_avail_count(small_mp), small_mp->size);
	good_config(port, 1);
}

static void test_forced_path(void **state)
{
	uint16_t port = loop_port("mrg_rxbuf=0,datapath=simple");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	/* The simple path has no offloads: a checksum offload cannot be served. */
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	configure(port, 1, 1, &conf, mp);
	FAILS(rte_eth_dev_start(port), "datapath=simple with RX checksum", "datapath",
	      "cannot serve");
	good_config(port, 1);
}

static void test_rss_unsupported(void **state)
{
	uint16_t port = loop_port("queues=2");
	struct rte_eth_conf conf = { 0 };

	(void)state;
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP;
	FAILS(rte_eth_dev_configure(port, 2, 2, &conf), "RSS, device without RSS", "rss_hf");
	good_config(port, 2);
}

/* TSO and LRO from a back-end that does not offer them (net_vhost, tso=0). */
static void test_offloads_vhost(void **state)
{
	struct gvh_pair pair;
	struct rte_mempool *vmp = gvh_pool(2047);
	struct gvh_port_conf vc = { .mp = vmp };
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;

	(void)state;
	assert_non_null(vmp);
	gvh_pair_init(&pair);
	if (gvh_vhost_add(&pair, false, &vc))
		fail_msg("%s", gvh_error());
	snprintf(pair.gv_name, sizeof(pair.gv_name), "net_gvirtio_user_cfg");
	{
		char args[300];

		snprintf(args, sizeof(args), "%s,path=%s", pair.gv_name, pair.sock);
		assert_int_equal(rte_dev_probe(args), 0);
		assert_int_equal(rte_eth_dev_get_port_by_name(pair.gv_name, &pair.gv), 0);
	}
	assert_int_equal(rte_eth_dev_info_get(pair.gv, &info), 0);
	assert_false(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_TCP_TSO;
	FAILS(rte_eth_dev_configure(pair.gv, 1, 1, &conf), "TSO without HOST_TSO4", "Tx offloads",
	      "capabilities");
	/* CTRL_VLAN is emulated on vhost-user (acknowledged, as DPDK's virtio_user does). */
	assert_true(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER);
	print_message("  (LRO: the back-end %s GUEST_TSO4/6)\n",
		      info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_LRO ? "offers" : "lacks");
	if (!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TCP_LRO)) {
		memset(&conf, 0, sizeof(conf));
		conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_TCP_LRO;
		FAILS(rte_eth_dev_configure(pair.gv, 1, 1, &conf), "LRO without GUEST_TSO",
		      "Rx offloads", "capabilities");
	}
	{
		struct gvh_port_conf gc = { .mp = mp };

		assert_int_equal(gvh_port_setup(pair.gv, &gc), 0);
		if (gvh_pair_start(&pair, 10.0))
			fail_msg("%s", gvh_error());
	}
	{
		struct gvh_flow f = { .tx_port = pair.gv, .rx_port = pair.vh, .tx_mp = mp,
				      .len = 300, .count = 100 };

		if (gvh_transfer(&f))
			fail_msg("%s", gvh_error());
	}
	gvh_pair_destroy(&pair);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
	rte_mempool_free(vmp);
}

/* ------------------------------------------------------------ devargs -- */

static void test_devargs(void **state)
{
	/* Which vdev, the devarg, and what the log line must name. */
	static const struct {
		bool loop;
		const char *arg, *needle;
	} bad[] = {
		{ false, "bogus=1", "bogus" },		{ false, "server=2", "server" },
		{ false, "server=", "server" },		{ false, "queues=0", "queues" },
		{ false, "queues=129", "queues" },	{ false, "queues=x", "queues" },
		{ false, "queues=-1", "queues" },	{ false, "queue_size=1", "queue_size" },
		{ false, "queue_size=40000", "queue_size" },
		{ false, "queue_size=abc", "queue_size" },
		{ false, "mac=zz", "mac" },		{ false, "mac=01:00:5e:00:00:01", "mac" },
		{ false, "mac=02:00:00:00:00", "mac" },	{ false, "packed_vq=x", "packed_vq" },
		{ false, "packed_vq=2", "packed_vq" },	{ false, "mrg_rxbuf=yes", "mrg_rxbuf" },
		{ false, "in_order=3", "in_order" },	{ false, "datapath=fast", "datapath" },
		{ false, "datapath=", "datapath" },	{ false, "speed=-1", "speed" },
		{ false, "speed=fast", "speed" },	{ false, "speed", "speed" },
		{ true, "mtu=20", "mtu" },		{ true, "mtu=70000", "mtu" },
		{ true, "features=0x4000000000", "features" }, /* NOTIFICATION_DATA */
		{ true, "features=zz", "features" },	{ true, "ctrl_silent=2", "ctrl_silent" },
		{ true, "mac=00:00:00:00:00:00", "mac" },
		{ false, "vectorized=2", "vectorized" },	{ false, "vectorized=", "vectorized" },
		{ true, "vectorized=x", "vectorized" },	{ false, "rx_hdr_line=1", "rx_hdr_line" },
		{ false, "rx_hdr_line=", "rx_hdr_line" }, { true, "rx_hdr_line=Own", "rx_hdr_line" },
		{ false, "barrier=smp", "barrier" },	{ true, "barrier=", "barrier" },
	};
	char sock[200], args[400], what[64];
	unsigned int n = 0;
	uint16_t nports = rte_eth_dev_count_avail();

	(void)state;
	/* A path with nobody behind it: the parse must be what fails. */
	snprintf(sock, sizeof(sock), "path=%s/nobody.sock", gvh_sock_dir());
	for (size_t i = 0; i < RTE_DIM(bad); i++, n++) {
		if (bad[i].loop)
			snprintf(args, sizeof(args), "net_gvirtio_loopbad%zu,%s", i, bad[i].arg);
		else
			snprintf(args, sizeof(args), "net_gvirtio_userbad%zu,%s,%s", i, sock,
				 bad[i].arg);
		snprintf(what, sizeof(what), "%s %s", bad[i].loop ? "loop" : "user", bad[i].arg);
		FAILS(rte_dev_probe(args), what, bad[i].needle);
	}
	/* A missing path, and one too long for a socket. */
	FAILS(rte_dev_probe("net_gvirtio_usernopath,queues=1"), "user without path", "path");
	memset(args, 0, sizeof(args));
	snprintf(args, sizeof(args), "net_gvirtio_userlong,path=/tmp/%0150d", 7);
	FAILS(rte_dev_probe(args), "user path of 155 bytes", "path");
	n += 2;
	assert_int_equal(rte_eth_dev_count_avail(), nports);
	print_message("  %u bad devargs refused, each named in the log\n", n);
	/* The process goes on. */
	{
		uint16_t port = loop_port("");

		good_config(port, 1);
	}
}

/* --------------------------------------- DPDK 22.11's devargs, accepted -- */

/* What a DPDK devarg must do on the port it made. */
enum dk_check { DK_RUNS, DK_MAC, DK_QSIZE, DK_QUEUES, DK_FEAT_ON, DK_FEAT_OFF, DK_SPEED, DK_VEC };

/*
 * Every key of DPDK 22.11's net_virtio_user (path, mac, cq, queue_size,
 * queues, iface, server, mrg_rxbuf, in_order, packed_vq, speed,
 * vectorized), under DPDK's vdev names: each good value probes, carries
 * traffic and has its meaning (read back through ethdev or on the vhost
 * side); iface, the tap of the vhost-kernel transport, is refused with a
 * line that names it.
 */
static void test_dpdk_devargs(void **state)
{
	static const struct {
		const char *name, *args;
		enum dk_check check;
		uint64_t want;
	} good[] = {
		{ "virtio_user", "", DK_RUNS, 0 },
		{ "net_virtio_user", "mac=02:11:22:33:44:55", DK_MAC, 0x021122334455ull },
		{ "virtio_user", "cq=1", DK_RUNS, 0 },
		{ "virtio_user", "cq=0", DK_RUNS, 0 },
		{ "net_virtio_user", "queue_size=512", DK_QSIZE, 512 },
		{ "virtio_user", "queues=2,cq=1", DK_QUEUES, 2 },
		{ "net_virtio_user", "server=1", DK_RUNS, 0 },
		{ "virtio_user", "mrg_rxbuf=0", DK_FEAT_OFF, 15 }, /* VIRTIO_NET_F_MRG_RXBUF */
		{ "virtio_user", "mrg_rxbuf=1", DK_FEAT_ON, 15 },
		{ "net_virtio_user", "in_order=0", DK_FEAT_OFF, 35 }, /* VIRTIO_F_IN_ORDER */
		{ "net_virtio_user", "in_order=1", DK_FEAT_ON, 35 },
		{ "virtio_user", "packed_vq=1", DK_FEAT_ON, 34 }, /* VIRTIO_F_RING_PACKED */
		{ "virtio_user", "packed_vq=0", DK_FEAT_OFF, 34 },
		{ "net_virtio_user", "speed=25000", DK_SPEED, 25000 },
		{ "virtio_user", "vectorized=1,mrg_rxbuf=0", DK_VEC, 1 },
		{ "virtio_user", "vectorized=0", DK_VEC, 0 },
	};
	struct rte_mempool *vmp = gvh_pool(2047);

	(void)state;
	assert_non_null(vmp);
	for (size_t i = 0; i < RTE_DIM(good); i++) {
		bool server = strstr(good[i].args, "server=1") != NULL;
		uint16_t nq = good[i].check == DK_QUEUES ? (uint16_t)good[i].want : 1;
		struct gvh_port_conf vc = { .mp = vmp, .nb_queues = nq };
		struct gvh_port_conf gc = { .mp = mp, .nb_queues = nq };
		struct gvh_pair pair;
		uint64_t feat = 0;

		gvh_pair_init(&pair);
		snprintf(pair.gv_name, sizeof(pair.gv_name), "%s_dk%zu", good[i].name, i);
		if (gvh_vhost_add(&pair, server, &vc) || gvh_gv_add(&pair, good[i].args, &gc) ||
		    gvh_pair_start(&pair, 10.0))
			fail_msg("%s,%s: %s", pair.gv_name, good[i].args, gvh_error());
		{
			struct gvh_flow f = { .tx_port = pair.gv, .rx_port = pair.vh, .tx_mp = mp,
					      .len = 300, .count = 100 };

			if (gvh_transfer(&f))
				fail_msg("%s,%s: %s", pair.gv_name, good[i].args, gvh_error());
		}
		assert_int_equal(gvh_vhost_features(pair.vh, &feat), 0);
		switch (good[i].check) {
		case DK_RUNS:
			break;
		case DK_MAC: {
			struct rte_ether_addr a;
			uint64_t m = 0;

			assert_int_equal(rte_eth_macaddr_get(pair.gv, &a), 0);
			for (int b = 0; b < RTE_ETHER_ADDR_LEN; b++)
				m = m << 8 | a.addr_bytes[b];
			assert_true(m == good[i].want);
			break;
		}
		case DK_QSIZE: {
			uint16_t sz = 0;

			assert_int_equal(gvh_vhost_ring_size(pair.vh, 0, &sz), 0);
			assert_int_equal(sz, good[i].want);
			break;
		}
		case DK_QUEUES: {
			struct rte_eth_dev_info info;

			assert_int_equal(rte_eth_dev_info_get(pair.gv, &info), 0);
			assert_int_equal(info.max_rx_queues, good[i].want);
			assert_int_equal(info.nb_rx_queues, good[i].want);
			break;
		}
		case DK_FEAT_ON:
		case DK_FEAT_OFF:
			assert_int_equal(!!(feat & (1ull << good[i].want)), good[i].check == DK_FEAT_ON);
			break;
		case DK_SPEED: {
			struct rte_eth_link link;

			struct rte_eth_dev_info info;

			assert_int_equal(rte_eth_link_get_nowait(pair.gv, &link), 0);
			assert_int_equal(link.link_speed, good[i].want);
			/* speed_capa: that speed's bit, as DPDK's virtio PMD reports it. */
			assert_int_equal(rte_eth_dev_info_get(pair.gv, &info), 0);
			assert_true(info.speed_capa == RTE_ETH_LINK_SPEED_25G);
			break;
		}
		case DK_VEC: {
			struct rte_eth_burst_mode bm;

			assert_int_equal(rte_eth_rx_burst_mode_get(pair.gv, 0, &bm), 0);
			assert_int_equal(strstr(bm.info, "vectorized") != NULL, good[i].want != 0);
			break;
		}
		}
		print_message("  %-38s accepted, %s\n", good[i].args[0] ? good[i].args : "(path only)",
			      good[i].check == DK_RUNS ? "forwards" : "forwards, and means it");
		gvh_pair_destroy(&pair);
		assert_int_equal(rte_mempool_avail_count(mp), mp->size);
	}
	rte_mempool_free(vmp);
	/* iface: the vhost-kernel transport's tap; refused, naming it. */
	{
		char args[300];

		snprintf(args, sizeof(args), "virtio_user_dkif,path=%s/nobody.sock,iface=tap0",
			 gvh_sock_dir());
		FAILS(rte_dev_probe(args), "iface=tap0", "iface", "vhost-kernel");
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_queues, port_teardown),
		cmocka_unit_test_teardown(test_mtu, port_teardown),
		cmocka_unit_test_teardown(test_ring_sizes, port_teardown),
		cmocka_unit_test_teardown(test_pools, port_teardown),
		cmocka_unit_test_teardown(test_forced_path, port_teardown),
		cmocka_unit_test_teardown(test_rss_unsupported, port_teardown),
		cmocka_unit_test(test_offloads_vhost),
		cmocka_unit_test_teardown(test_devargs, port_teardown),
		cmocka_unit_test(test_dpdk_devargs),
	};
	int ret;

	(void)argc;
	if (gvl_eal_init(argv[0]) || !gvh_sock_dir())
		return 1;
	rte_log_set_level_pattern("lib.vhost.*", RTE_LOG_ERR);
	rte_log_set_level_pattern("pmd.net.vhost", RTE_LOG_ERR);
	tiny_mp = rte_pktmbuf_pool_create("cfg_tiny", 255, 0, 0, RTE_PKTMBUF_HEADROOM + 32,
					  SOCKET_ID_ANY);
	small_mp = rte_pktmbuf_pool_create("cfg_small", 1023, 0, 0, RTE_PKTMBUF_HEADROOM + 512,
					   SOCKET_ID_ANY);
	if (!tiny_mp || !small_mp || log_capture_open())
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	log_capture_close();
	gvh_cleanup();
	rte_eal_cleanup();
	return ret;
}
