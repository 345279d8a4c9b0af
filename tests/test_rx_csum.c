/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rx_csum.c - the receive checksum and LRO state gv_rx_offload()
 * (gv_offload.c) derives from a virtio-net header the device wrote, one
 * case per row: frames built by gv_test_inet.h (TCP and UDP over IPv4 and
 * IPv6, tagged or not, and an IPv4 protocol the parser does not know),
 * headers crafted here. Each row checks the L4 flags, the LRO flag and
 * MSS, and the bytes: left as they came, or (NEEDS_CSUM away from the L4
 * header) completed into a checksum that verifies from scratch.
 */
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "gv_test_inet.h"
#include "gv_test_loop.h"

#include "gv_offload.h"

#define PROTO_X 253 /* RFC 3692 experimental: no L4 the parser knows */

enum where {
	AT_L4, /* csum_start/offset: the TCP or UDP header's checksum */
	AT_X, /* start at the L4 offset, field 2 bytes in (protocol X) */
	PAST_END, /* csum_start beyond the frame */
	CROSS_END, /* the field's second byte beyond the frame */
	NO_CSUM, /* no NEEDS_CSUM */
};

struct row {
	const char *name;
	struct gti_spec s;
	bool proto_x; /* the IPv4 protocol rewritten to PROTO_X */
	enum where at;
	uint8_t flags; /* header flags besides NEEDS_CSUM (set from `at`) */
	uint8_t gso_type;
	bool csum, lro; /* the queue's ol_csum, ol_lro */
	uint64_t want_l4; /* RTE_MBUF_F_RX_L4_CKSUM_* */
	bool want_lro;
	bool completed; /* the bytes changed: a completed checksum */
};

#define TCP4 { .payload = 300, .seed = 1 }
#define UDP6T { .v6 = true, .udp = true, .tagged = true, .vid = 7, .payload = 301, .seed = 2 }
#define TCP6 { .v6 = true, .payload = 5000, .seed = 3 }

static const struct row rows[] = {
	{ "needs_csum_tcp4", TCP4, false, AT_L4, 0, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_NONE, false, false },
	{ "needs_csum_udp6_tagged", UDP6T, false, AT_L4, 0, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_NONE, false, false },
	{ "needs_csum_ignores_data_valid", TCP4, false, AT_L4, GV_NET_HDR_F_DATA_VALID, 0, true,
	  false, RTE_MBUF_F_RX_L4_CKSUM_NONE, false, false },
	{ "needs_csum_lro_only_queue", TCP4, false, AT_L4, 0, 0, false, true,
	  RTE_MBUF_F_RX_L4_CKSUM_NONE, false, false },
	{ "needs_csum_elsewhere", TCP4, true, AT_X, 0, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN, false, true },
	{ "needs_csum_past_end", TCP4, false, PAST_END, 0, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_BAD, false, false },
	{ "needs_csum_crosses_end", TCP4, false, CROSS_END, 0, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_BAD, false, false },
	{ "lro_tcp4", TCP4, false, AT_L4, 0, GV_NET_HDR_GSO_TCPV4, true, true,
	  RTE_MBUF_F_RX_L4_CKSUM_NONE, true, false },
	{ "lro_tcp6_ecn", TCP6, false, AT_L4, 0, GV_NET_HDR_GSO_TCPV6 | GV_NET_HDR_GSO_ECN, true,
	  true, RTE_MBUF_F_RX_L4_CKSUM_NONE, true, false },
	{ "lro_needs_csum_elsewhere", TCP4, true, AT_X, 0, GV_NET_HDR_GSO_TCPV4, true, true,
	  RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN, true, false },
	{ "lro_data_valid", TCP6, false, NO_CSUM, GV_NET_HDR_F_DATA_VALID, GV_NET_HDR_GSO_TCPV6,
	  true, true, RTE_MBUF_F_RX_L4_CKSUM_GOOD, true, false },
	{ "gso_without_lro_offload", TCP4, false, AT_L4, 0, GV_NET_HDR_GSO_TCPV4, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_NONE, false, false },
	{ "data_valid", UDP6T, false, NO_CSUM, GV_NET_HDR_F_DATA_VALID, 0, true, false,
	  RTE_MBUF_F_RX_L4_CKSUM_GOOD, false, false },
	{ "no_flags", TCP4, false, NO_CSUM, 0, 0, true, false, RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN,
	  false, false },
};

#define MSS 1000

static uint8_t f[GTI_MAX_FRAME], g[GTI_MAX_FRAME];

/* The frame of row r, its L4 field holding a partial sum as a device
 * leaves it (pseudo-header with the length; protocol X: any 16 bits). */
static uint32_t build(const struct row *r, struct gti_info *in)
{
	uint32_t len = gti_build(f, &r->s);

	assert_true(gti_parse(f, len, in));
	if (r->proto_x) {
		f[in->l2 + 9] = PROTO_X;
		gti_ip4_fix(f, in);
		gti_w16(f + in->l2 + in->l3 + 2, 0x1234);
	} else {
		gti_w16(f + in->csum_at, gti_fold(gti_pseudo(f, in, len - in->l2 - in->l3, true)));
	}
	return len;
}

static void fill_hdr(const struct row *r, const struct gti_info *in, struct gv_net_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->flags = r->flags;
	h->gso_type = r->gso_type;
	h->gso_size = r->gso_type ? MSS : 0;
	if (r->at == NO_CSUM)
		return;
	h->flags |= GV_NET_HDR_F_NEEDS_CSUM;
	h->csum_start = (uint16_t)(in->l2 + in->l3);
	switch (r->at) {
	case AT_L4:
		h->csum_offset = (uint16_t)(in->csum_at - h->csum_start);
		break;
	case AT_X:
		h->csum_offset = 2;
		break;
	case PAST_END:
		h->csum_start = (uint16_t)in->len;
		break;
	case CROSS_END:
		h->csum_offset = (uint16_t)(in->len - h->csum_start - 1);
		break;
	default:
		break;
	}
}

static void run_row(void **state)
{
	const struct row *r = *state;
	struct gv_rxq q = { .ol_any = true, .ol_csum = r->csum, .ol_lro = r->lro };
	struct gti_info in;
	struct gv_net_hdr h;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp_big);
	uint32_t len = build(r, &in);

	assert_non_null(m);
	fill_hdr(r, &in, &h);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	gv_rx_offload(&q, m, &h);
	assert_int_equal(m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, r->want_l4);
	assert_int_equal(!!(m->ol_flags & RTE_MBUF_F_RX_LRO), r->want_lro);
	if (r->want_lro)
		assert_int_equal(m->tso_segsz, MSS);
	assert_int_equal(gti_copy(m, g, sizeof(g)), len);
	if (!r->completed) {
		assert_memory_equal(g, f, len);
	} else {
		/* Protocol X's checksum from scratch: its "pseudo-header" is the
		 * seed 0x1234 the field held; it verifies with the seed added. */
		const uint32_t start = in.l2 + in.l3, at = start + 2;
		uint16_t want;

		gti_w16(f + at, 0);
		want = (uint16_t)~gti_fold(gti_sum(0x1234, f + start, len - start));
		gti_w16(f + at, 0x1234);
		assert_int_equal(gti_r16(g + at), want ? want : 0xffff);
		assert_int_equal(gti_fold(gti_sum(0x1234, g + start, len - start)), 0xffff);
		gti_w16(g + at, 0x1234);
		assert_memory_equal(g, f, len);
	}
	if (r->at == AT_L4 && !r->proto_x) {
		/* The partial sum left in place completes to the right one. */
		assert_true(gti_parse(g, len, &in));
		assert_int_equal(gti_complete(g, &in), gti_l4_csum(g, &in, true));
	}
	rte_pktmbuf_free(m);
}

/*
 * Each byte of the header read at most once, whatever the device does in
 * between: the header sits alone on a page with no access; a read faults,
 * the handler counts the bytes' offset, opens the page for one instruction
 * (the trap flag) and, after it, changes the header as a device could
 * (every field flipped) and closes the page again. x86-64 (the trap flag).
 */
static volatile uint8_t *g_page;
static unsigned int g_reads[64], g_stray;

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t a = (uintptr_t)si->si_addr, p = (uintptr_t)g_page;

	(void)sig;
	if (a < p || a >= p + sizeof(g_reads)) {
		g_stray++;
		signal(SIGSEGV, SIG_DFL); /* not ours: crash where it happened */
		return;
	}
	g_reads[a - p]++;
	mprotect((void *)g_page, 4096, PROT_READ);
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100;
}

static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100LL;
	mprotect((void *)g_page, 4096, PROT_READ | PROT_WRITE);
	for (unsigned int i = 0; i < sizeof(struct gv_net_hdr_hash); i++)
		g_page[i] ^= 0x5a;
	mprotect((void *)g_page, 4096, PROT_NONE);
}

static void header_read_once(void **state)
{
	const struct row *r = &rows[4]; /* the completion path */
	struct gv_rxq q = { .ol_any = true, .ol_csum = true, .ol_lro = true, .ol_rss_hash = true };
	struct sigaction sa = { .sa_flags = SA_SIGINFO }, old_segv, old_trap;
	struct gti_info in;
	struct gv_net_hdr_hash h;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp_big);
	uint32_t len = build(r, &in), total = 0;

	(void)state;
	assert_string_equal(r->name, "needs_csum_elsewhere");
	assert_non_null(m);
	memset(&h, 0, sizeof(h));
	fill_hdr(r, &in, &h.hdr);
	h.hash_report = 1;
	h.hash_value = 0x12345678;
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	g_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g_page != MAP_FAILED);
	memcpy((void *)g_page, &h, sizeof(h));
	sa.sa_sigaction = on_segv;
	sigaction(SIGSEGV, &sa, &old_segv);
	sa.sa_sigaction = on_trap;
	sigaction(SIGTRAP, &sa, &old_trap);
	mprotect((void *)g_page, 4096, PROT_NONE);
	gv_rx_offload(&q, m, (const struct gv_net_hdr *)g_page);
	mprotect((void *)g_page, 4096, PROT_READ | PROT_WRITE);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
	assert_int_equal(g_stray, 0);
	for (unsigned int i = 0; i < sizeof(g_reads) / sizeof(g_reads[0]); i++) {
		if (g_reads[i] > 1)
			fail_msg("header byte %u read %u times", i, g_reads[i]);
		total += g_reads[i];
	}
	print_message("%u reads of the header\n", total);
	assert_true(total >= 1);
	munmap((void *)g_page, 4096);
	rte_pktmbuf_free(m);
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[RTE_DIM(rows) + 1];

	(void)argc;
	if (gvl_eal_init(argv[0]) < 0)
		return 1;
	for (unsigned int i = 0; i < RTE_DIM(rows); i++)
		tests[i] = (struct CMUnitTest){ rows[i].name, run_row, NULL, NULL,
						(void *)(uintptr_t)&rows[i] };
	tests[RTE_DIM(rows)] = (struct CMUnitTest){ "header_read_once", header_read_once, NULL,
						    NULL, NULL };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
