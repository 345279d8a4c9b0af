/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loop_offload.c - the PMD's RSS and offloads against the loopback
 * device (net_gvirtio_loop): RSS queue choice and hash report through
 * gv_rss.c; transmit checksum offload and receive checksum status; TSO (a
 * 64 KB payload arrives as correct segments) on both ring layouts; LRO
 * (the same payload arrives whole, flagged, its checksum partial).
 */
#include "gv_test_inet.h"
#include "gv_test_loop.h"

#include "gv_pmd.h" /* GV_MAX_TX_SEGS */

/* ----------------------------------------------------------------- RSS -- */

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* The PMD's RSS (gv_rss.c) against the device's: queue choice and hash. */
static void test_rss(void **state)
{
	struct port p;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct rte_eth_rss_reta_entry64 reta[128 / RTE_ETH_RETA_GROUP_SIZE];
	uint8_t key[40];

	(void)state;
	memcpy(key, ms_key, sizeof(key));
	assert_int_equal(port_probe(&p, "queues=4,features=0x1200000000000000"), 0);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH;
	conf.rx_adv_conf.rss_conf.rss_key = key;
	conf.rx_adv_conf.rss_conf.rss_key_len = 40;
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	assert_int_equal(rte_eth_dev_configure(p.id, 4, 4, &conf), 0);
	for (uint16_t q = 0; q < 4; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, NULL, mp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	p.nq = 4;
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(rte_eth_dev_info_get(p.id, &info), 0);
	assert_int_equal(info.reta_size, 128);
	assert_true(stats(&p).rss);
	assert_int_equal(stats(&p).hash_types, 0x5); /* IPv4 | UDPv4 */
	memset(reta, 0, sizeof(reta));
	for (int g = 0; g < 2; g++)
		reta[g].mask = UINT64_MAX;
	assert_int_equal(rte_eth_dev_rss_reta_query(p.id, reta, 128), 0);

	for (uint32_t seq = 0; seq < 64; seq++) {
		struct rte_mbuf *m = frame(mp, &mac, 100, seq, -1), *r[4];
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
		uint8_t in[12];
		uint32_t hash;
		uint16_t want, got = UINT16_MAX, n;

		memcpy(in, b + 26, 8); /* addresses */
		memcpy(in + 8, b + 34, 4); /* ports */
		hash = gv_loop_toeplitz(ms_key, 40, in, 12);
		want = reta[(hash & 127) / 64].reta[(hash & 127) % 64];
		send_all(&p, (uint16_t)(seq % 4), &m, 1);
		for (uint16_t q = 0; q < 4; q++) {
			n = recv_all(&p, q, r, 4);
			if (n) {
				assert_int_equal(n, 1);
				got = q;
				assert_true(r[0]->ol_flags & RTE_MBUF_F_RX_RSS_HASH);
				assert_int_equal(r[0]->hash.rss, hash);
				free_all(r, n);
			}
		}
		assert_int_equal(got, want);
	}
	/* Everything to queue 3. */
	for (int g = 0; g < 2; g++)
		for (int i = 0; i < 64; i++)
			reta[g].reta[i] = 3;
	assert_int_equal(rte_eth_dev_rss_reta_update(p.id, reta, 128), 0);
	assert_int_equal(one_way(&p, &mac, -1, 0, 3), 1);
	assert_int_equal(stats(&p).ctrl_err, 0);
	port_remove(&p);
}

/* ------------------------------------------------------------ offloads -- */

/* Is the TCP or UDP checksum of this IPv4 frame (untagged) right? */
static bool l4_csum_good(const uint8_t *b, uint32_t len)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(b + 14);
	uint32_t l4len = rte_be_to_cpu_16(ip->total_length) - 20, sum;

	if (14 + 20 + l4len > len)
		return false;
	sum = rte_ipv4_phdr_cksum(ip, 0) + rte_raw_cksum(b + 34, l4len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* A TCP/IPv4 frame with `payload` bytes, prepared for TSO or csum offload. */
static struct rte_mbuf *tcp_frame(const struct rte_ether_addr *dst, uint32_t payload, bool tso)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t left = 54 + payload, off = 0;
	uint8_t *b;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;

	/* Spread over 16 KB mbufs: several segments for a large payload. */
	while (left) {
		uint32_t n = RTE_MIN(left, 16000u);

		m = rte_pktmbuf_alloc(mp_big);
		assert_non_null(m);
		b = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (uint32_t i = 0; i < n; i++)
			b[i] = (uint8_t)((off + i) * 13);
		if (head)
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
		else
			head = m;
		off += n;
		left -= n;
	}
	b = rte_pktmbuf_mtod(head, uint8_t *);
	memcpy(b, dst, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
	b[12] = 0x08;
	b[13] = 0;
	ip = (struct rte_ipv4_hdr *)(b + 14);
	memset(ip, 0, 20);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(40 + payload));
	ip->packet_id = rte_cpu_to_be_16(100);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
	tcp = (struct rte_tcp_hdr *)(ip + 1);
	memset(tcp, 0, 20);
	tcp->src_port = rte_cpu_to_be_16(1234);
	tcp->dst_port = rte_cpu_to_be_16(80);
	tcp->sent_seq = rte_cpu_to_be_32(1000000);
	tcp->data_off = 5 << 4;
	tcp->tcp_flags = RTE_TCP_PSH_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG;
	tcp->rx_win = rte_cpu_to_be_16(65535);
	head->l2_len = 14;
	head->l3_len = 20;
	head->l4_len = 20;
	head->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
			 (tso ? RTE_MBUF_F_TX_TCP_SEG : RTE_MBUF_F_TX_TCP_CKSUM);
	head->tso_segsz = tso ? 1448 : 0;
	return head;
}

static void send_prepared(const struct port *p, struct rte_mbuf *m)
{
	assert_int_equal(rte_eth_tx_prepare(p->id, 0, &m, 1), 1);
	send_all(p, 0, &m, 1);
}

static void test_csum_offload(void **state)
{
	struct port_cfg cfg = { .txo = RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
				.rxo = RTE_ETH_RX_OFFLOAD_TCP_CKSUM };
	struct port p;
	struct rte_ether_addr mac;
	struct rte_mbuf *r[4];
	uint8_t b[2048];

	(void)state;
	assert_int_equal(port_probe(&p, ""), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	send_prepared(&p, tcp_frame(&mac, 1000, false));
	assert_int_equal(recv_all(&p, 0, r, 4), 1);
	assert_int_equal(r[0]->pkt_len, 1054);
	pkt_copy(r[0], 1054, b);
	assert_true(l4_csum_good(b, 1054));
	assert_int_equal(rte_ipv4_cksum((const struct rte_ipv4_hdr *)(b + 14)), 0);
	assert_int_equal(r[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	free_all(r, 1);
	assert_int_equal(stats(&p).tx_csum, 1);
	/* A frame with a wrong checksum and no offload: not marked good. */
	{
		struct rte_mbuf *m = tcp_frame(&mac, 100, false);
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

		m->ol_flags = 0;
		d[14 + 20 + 16] ^= 0x55;
		send_all(&p, 0, &m, 1);
		assert_int_equal(recv_all(&p, 0, r, 4), 1);
		assert_int_not_equal(r[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
				     RTE_MBUF_F_RX_L4_CKSUM_GOOD);
		free_all(r, 1);
	}
	port_remove(&p);
}

/*
 * tx_prepare refuses what the device cannot do: it stops at the first such
 * packet of the burst (the count of the good ones before it) and says why
 * in rte_errno.
 */
static void prepare_refuses(const struct port *p, struct rte_mbuf *bad, int err)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *m[2];

	rte_eth_macaddr_get(p->id, &mac);
	m[0] = tcp_frame(&mac, 100, false);
	m[1] = bad;
	rte_errno = 0;
	assert_int_equal(rte_eth_tx_prepare(p->id, 0, m, 2), 1);
	assert_int_equal(rte_errno, err);
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(m[1]);
}

static void test_tx_prepare_refuses(void **state)
{
	static const uint64_t unsupported[] = {
		RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_SCTP_CKSUM, /* no SCTP CRC in virtio */
		RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_TCP_SEG, /* TSO not negotiated here */
		RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_SEG, /* no UFO/USO */
		RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IP_CKSUM, /* no tunnels */
	};
	struct port_cfg csum = { .txo = RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS };
	struct port_cfg tso = { .txo = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS };
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	struct port p;

	(void)state;
	assert_int_equal(port_probe(&p, ""), 0);
	port_start(&p, &csum);
	rte_eth_macaddr_get(p.id, &mac);
	for (unsigned int i = 0; i < RTE_DIM(unsupported); i++) {
		m = tcp_frame(&mac, 100, false);
		m->ol_flags = unsupported[i];
		m->tso_segsz = 1000;
		prepare_refuses(&p, m, ENOTSUP);
	}
	/* More segments than one chain may take. */
	m = tcp_frame(&mac, 100, false);
	while (m->nb_segs <= GV_MAX_TX_SEGS) {
		struct rte_mbuf *s = rte_pktmbuf_alloc(mp);

		assert_non_null(s);
		assert_non_null(rte_pktmbuf_append(s, 1));
		assert_int_equal(rte_pktmbuf_chain(m, s), 0);
	}
	prepare_refuses(&p, m, EINVAL);
	port_remove(&p);

	/* TSO negotiated, but a TSO packet without an MSS. */
	assert_int_equal(port_probe(&p, ""), 0);
	port_start(&p, &tso);
	rte_eth_macaddr_get(p.id, &mac);
	m = tcp_frame(&mac, 3000, true);
	m->tso_segsz = 0;
	prepare_refuses(&p, m, EINVAL);
	port_remove(&p);
}

static void test_tso(void **state)
{
	const bool packed = *state != NULL;
	struct port_cfg cfg = { .txo = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				       RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
				.rxo = RTE_ETH_RX_OFFLOAD_TCP_CKSUM };
	const uint32_t payload = 65536 - 100, mss = 1448, nseg = (payload + mss - 1) / mss;
	struct port p;
	struct rte_ether_addr mac;
	struct rte_mbuf *r[64];
	uint8_t b[2048];
	uint16_t n;

	assert_int_equal(port_probe(&p, packed ? "packed_vq=1" : ""), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	send_prepared(&p, tcp_frame(&mac, payload, true));
	n = recv_all(&p, 0, r, 64);
	assert_int_equal(n, nseg);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t plen = RTE_MIN(mss, payload - k * mss), len = 54 + plen;
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(b + 14);
		const struct rte_tcp_hdr *tcp = (const struct rte_tcp_hdr *)(b + 34);
		uint8_t flags;

		assert_int_equal(r[k]->pkt_len, len);
		pkt_copy(r[k], len, b);
		assert_int_equal(rte_be_to_cpu_16(ip->total_length), 40 + plen);
		assert_int_equal(rte_be_to_cpu_16(ip->packet_id), 100 + k);
		assert_int_equal(rte_ipv4_cksum(ip), 0);
		assert_int_equal(rte_be_to_cpu_32(tcp->sent_seq), 1000000 + k * mss);
		flags = tcp->tcp_flags;
		if (k + 1 < n)
			assert_int_equal(flags, RTE_TCP_ACK_FLAG);
		else
			assert_int_equal(flags, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
		assert_true(l4_csum_good(b, len));
		for (uint32_t i = 0; i < plen; i++)
			assert_int_equal(b[54 + i], (uint8_t)((54 + k * mss + i) * 13));
		assert_int_equal(r[k]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK,
				 RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	}
	free_all(r, n);
	assert_int_equal(stats(&p).tx_gso, 1);
	port_remove(&p);
}

static void test_lro(void **state)
{
	struct port_cfg cfg = { .txo = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				       RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
				.rxo = RTE_ETH_RX_OFFLOAD_TCP_LRO | RTE_ETH_RX_OFFLOAD_TCP_CKSUM };
	const uint32_t payload = 65536 - 100, len = 54 + payload;
	static uint8_t b[65536];
	struct gti_info in;
	struct port p;
	struct rte_ether_addr mac;
	struct rte_mbuf *r[4];

	(void)state;
	assert_int_equal(port_probe(&p, "mrg_rxbuf=1"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	send_prepared(&p, tcp_frame(&mac, payload, true));
	assert_int_equal(recv_all(&p, 0, r, 4), 1);
	assert_int_equal(r[0]->pkt_len, len);
	assert_true(r[0]->ol_flags & RTE_MBUF_F_RX_LRO);
	assert_int_equal(r[0]->tso_segsz, 1448);
	/*
	 * NEEDS_CSUM on a GSO packet: partial, reported so, left as the device
	 * wrote it: the pseudo-header sum with the L4 length (the loop device
	 * follows Linux), which completed is the checksum computed here.
	 */
	assert_int_equal(r[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_NONE);
	pkt_copy(r[0], len, b);
	assert_true(gti_parse(b, len, &in));
	assert_int_equal(gti_r16(b + in.csum_at),
			 gti_fold(gti_pseudo(b, &in, len - in.l2 - in.l3, true)));
	assert_int_equal(gti_complete(b, &in), gti_l4_csum(b, &in, true));
	gti_w16(b + in.csum_at, gti_complete(b, &in));
	assert_true(l4_csum_good(b, len));
	free_all(r, 1);
	assert_int_equal(stats(&p).rx_lro, 1);
	port_remove(&p);
}

/* ------------------------------------------------------- VLAN strip -- */

/* One tagged frame through the port: 1 if it came back stripped (tag in vlan_tci). */
static int tagged_once(const struct port *p, const struct rte_ether_addr *mac)
{
	struct rte_mbuf *m = frame(mp, mac, 100, 1, 42), *r[4];
	int stripped;

	send_all(p, 0, &m, 1);
	assert_int_equal(recv_all(p, 0, r, 4), 1);
	stripped = (r[0]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) != 0;
	assert_int_equal(r[0]->pkt_len, stripped ? 96 : 100);
	if (stripped)
		assert_int_equal(r[0]->vlan_tci & 0xfff, 42);
	free_all(r, 1);
	return stripped;
}

/*
 * rte_eth_dev_set_vlan_offload at run time: on a path that strips, the
 * next frame is stripped (and not once it is off again); on a started
 * port whose path cannot strip, -ENOTSUP and the offloads stay as they
 * were, and a stop/start then picks a path that does. Filtering needs
 * CTRL_VLAN, negotiated only from the configure-time offloads.
 */
static void test_vlan_offload_set(void **state)
{
	struct port_cfg cfg = { 0 };
	struct rte_ether_addr mac;
	struct port p;

	(void)state;
	assert_int_equal(port_probe(&p, "datapath=full"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(tagged_once(&p, &mac), 0);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.id, RTE_ETH_VLAN_STRIP_OFFLOAD), 0);
	assert_int_equal(rte_eth_dev_get_vlan_offload(p.id), RTE_ETH_VLAN_STRIP_OFFLOAD);
	assert_int_equal(tagged_once(&p, &mac), 1);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.id, 0), 0);
	assert_int_equal(tagged_once(&p, &mac), 0);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.id, RTE_ETH_VLAN_FILTER_OFFLOAD), -ENOTSUP);
	assert_int_equal(rte_eth_dev_get_vlan_offload(p.id), 0);
	port_remove(&p);

	assert_int_equal(port_probe(&p, "mrg_rxbuf=0"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.id, RTE_ETH_VLAN_STRIP_OFFLOAD), -ENOTSUP);
	assert_int_equal(rte_eth_dev_get_vlan_offload(p.id), 0);
	assert_int_equal(tagged_once(&p, &mac), 0);
	assert_int_equal(rte_eth_dev_stop(p.id), 0);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.id, RTE_ETH_VLAN_STRIP_OFFLOAD), 0);
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	assert_int_equal(tagged_once(&p, &mac), 1);
	port_remove(&p);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
}

/* ---------------------------------------------------------------- main -- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rss),
		cmocka_unit_test(test_csum_offload),
		cmocka_unit_test(test_tx_prepare_refuses),
		cmocka_unit_test_prestate(test_tso, NULL),
		cmocka_unit_test_prestate(test_tso, (void *)1),
		cmocka_unit_test(test_lro),
		cmocka_unit_test(test_vlan_offload_set),
	};

	if (gvl_eal_init("test_loop_offload"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
