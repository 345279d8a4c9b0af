/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_hostile.c - the PMD against a hostile device, deterministic:
 * the fuzz_pmd harness (fuzz/pmd/fuzz_pmd*.c, built here with gcc and no
 * libFuzzer) replays the inputs that once broke the PMD, one test per bug
 * class, then every seed of fuzz/corpus/fuzz_pmd/, once with vectorized=0
 * and once with vectorized=1 (the vector RX path). The harness aborts on
 * a failed invariant (an insane received mbuf, a TX header with stray
 * bytes, an mbuf lost or freed twice after the port is gone); the ASan
 * build adds out-of-bounds and UB checks. See docs/robustness.md.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_log.h>

#include "fuzz_pmd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replay(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(buf));
	assert_int_equal(LLVMFuzzerTestOneInput(buf, n), 0);
	return n;
}

static void finding(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/findings/%s", GV_FUZZ_DIR, name);
	replay(path);
}

/* NEEDS_CSUM with csum_start + csum_offset odd: the completed checksum was
 * stored through a misaligned uint16_t pointer (UBSan). */
static void test_rx_csum_odd_offset(void **state)
{
	(void)state;
	finding("pmd_rx_csum_misaligned");
}

/* VLAN strip of a frame shorter than its tag: rte_vlan_strip memmoved to
 * NULL (segfault). */
static void test_rx_vlan_strip_runt(void **state)
{
	(void)state;
	finding("pmd_rx_vlan_strip_runt");
}

/* HASH_REPORT (20-byte header) on the chained TX path: 8 bytes of stack
 * read past the header struct and sent (ASan; the harness checks the
 * TX header's tail is zero). */
static void test_tx_header_with_hash_report(void **state)
{
	(void)state;
	finding("pmd_tx_hdr_hash_overread");
}

/* RX refill on a queue the device broke lost every mbuf it allocated
 * (the harness's pool check after close). */
static void test_rx_refill_on_broken_queue(void **state)
{
	(void)state;
	finding("pmd_rx_refill_broken_leak");
}

/* A config space MAC that is multicast: the port kept a random unicast
 * one at probe, and configure (the negotiation) copied the device's over
 * it (the harness checks the port's MAC after configure). */
static void test_config_mac_multicast(void **state)
{
	(void)state;
	finding("pmd_config_mac_multicast");
}

/* The input of a legacy device (fixed ring size) with queue_max `qmax`,
 * no script: the port starts only with a usable size. */
static void replay_legacy(uint16_t qmax)
{
	uint8_t in[4 + 6 + 1 + 32] = { 128 };

	in[6] = (uint8_t)qmax;
	in[7] = (uint8_t)(qmax >> 8);
	assert_int_equal(LLVMFuzzerTestOneInput(in, sizeof(in)), 0);
}

/* A legacy device's ring size that is not a power of two, or beyond the
 * core's limit: the queue set-up failed only in gv_vq_init, after the
 * ring's memzone was reserved for that size, and said "ring set-up
 * failed". Now it fails first, saying why. (A size of 0 ethdev refuses
 * itself: the port's descriptor limit is 0.) */
static void test_legacy_ring_size(void **state)
{
	static const uint16_t bad[] = { 100, 65535 };
	char *log = NULL;
	size_t len = 0;
	FILE *f;
	unsigned int started = fz_pmd_started;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = open_memstream(&log, &len);
		assert_non_null(f);
		assert_int_equal(rte_openlog_stream(f), 0);
		assert_int_equal(rte_log_set_level_pattern("pmd.net.gvirtio", RTE_LOG_ERR), 0);
		replay_legacy(bad[i]);
		rte_log_set_level_pattern("pmd.net.gvirtio", RTE_LOG_EMERG);
		rte_openlog_stream(NULL);
		fclose(f);
		print_message("queue_max %u: %s", bad[i], log);
		assert_non_null(strstr(log, "the device's fixed ring size"));
		assert_null(strstr(log, "ring set-up failed"));
		assert_int_equal(fz_pmd_started, started);
		free(log);
		log = NULL;
	}
	replay_legacy(0);
	assert_int_equal(fz_pmd_started, started);
	replay_legacy(256);
	assert_int_equal(fz_pmd_started, started + 1);
}

/*
 * Mergeable buffers: a short buffer whose header says num_buffers 2, then
 * a second frame. The scalar path reads num_buffers and makes one packet
 * of the two buffers. The vector paths do not read it (a buffer the device
 * did not fill is a whole packet: docs/robustness.md says why): each
 * buffer is a packet of its own. Either way nothing leaves its buffer and
 * every mbuf comes back (the harness), split and packed.
 */
static void test_rx_vec_mrg_num_buffers(void **state)
{
	static const char *const inputs[] = { "pmd_rx_vec_mrg_num_buffers",
					      "pmd_rx_vec_packed_mrg_num_buffers" };
	const bool usable = gv_rx_path_usable(GV_RX_VEC_SSE);

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		unsigned int before = fz_pmd_rx_pkts, runs, scalar, vec;

		fz_pmd_vec_mode = GV_VEC_OFF;
		finding(inputs[i]);
		scalar = fz_pmd_rx_pkts - before;
		fz_pmd_vec_mode = GV_VEC_ON;
		runs = fz_pmd_vec_runs;
		before = fz_pmd_rx_pkts;
		finding(inputs[i]);
		vec = fz_pmd_rx_pkts - before;
		fz_pmd_vec_mode = GV_VEC_OFF;
		print_message("%s: scalar %u packet(s), vector %u (%u vector run)\n", inputs[i], scalar,
			      vec, fz_pmd_vec_runs - runs);
		assert_int_equal(scalar, 1);
		assert_int_equal(fz_pmd_vec_runs - runs, usable ? 1 : 0);
		assert_int_equal(vec, usable ? 2 : scalar);
	}
}

/* Every seed and regression input of the fuzz target. */
static void test_corpus(void **state)
{
	char path[512];
	struct dirent *e;
	DIR *d;
	unsigned int n = 0;

	/* Scalar paths unless asked (the default would take the vector path with IN_ORDER). */
	fz_pmd_vec_mode = state != NULL && *state != NULL ? GV_VEC_ON : GV_VEC_OFF;
	snprintf(path, sizeof(path), "%s/corpus/fuzz_pmd", GV_FUZZ_DIR);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/corpus/fuzz_pmd/%s", GV_FUZZ_DIR, e->d_name);
		replay(path);
		n++;
	}
	closedir(d);
	assert_true(n >= 30);
	fz_pmd_vec_mode = GV_VEC_OFF;
}

/*
 * The corpus twice more, with rx_hdr_line=own and then shared on every
 * input: where that is not the default (own with mergeable buffers,
 * shared without), the header the device wrote sits 12 bytes from where
 * the default puts it.
 */
static void test_corpus_rx_hdr(void **state)
{
	fz_pmd_rx_hdr = GV_RX_HDR_OWN;
	test_corpus(state);
	fz_pmd_rx_hdr = GV_RX_HDR_SHARED;
	test_corpus(state);
	fz_pmd_rx_hdr = GV_RX_HDR_AUTO;
}

/*
 * The same with vectorized=1: every split input without mergeable
 * buffers or RX offloads runs on the vector RX path (seed-split-vec-*:
 * out-of-order returns, duplicate and out-of-range ids, lengths beyond
 * the buffer, IN_ORDER violations, a runaway used index).
 */
static void test_corpus_vectorized(void **state)
{
	static int on = 1;
	void *arg = &on;
	unsigned int before = fz_pmd_vec_runs;

	(void)state;
	test_corpus(&arg);
	print_message("%u runs on a vector rx path\n", fz_pmd_vec_runs - before);
	if (gv_rx_path_usable(GV_RX_VEC_SSE))
		assert_true(fz_pmd_vec_runs - before >= 8);
	else
		assert_int_equal(fz_pmd_vec_runs, before);
}

/*
 * The packed vector RX path against hostile used descriptors (seeds
 * packed-vec-*, on a 60-descriptor ring): every seed runs on a vector
 * path; an id returned twice or out of range, a length beyond the buffer,
 * an IN_ORDER violation and a used descriptor the device was never given
 * break RX queue 0; steady traffic and out-of-order returns (holes, a
 * runt) do not. The harness's pool check after close (abort otherwise)
 * proves no mbuf was lost or freed twice.
 */
static void test_packed_vec_hostile(void **state)
{
	static const struct {
		const char *seed;
		unsigned int breaks;
	} cases[] = {
		{ "seed-packed-vec-steady", 0 },	{ "seed-packed-vec-out-of-order", 0 },
		{ "seed-packed-vec-dup-id", 1 },	{ "seed-packed-vec-bad-len", 1 },
		{ "seed-packed-vec-inorder-bad-order", 1 }, { "seed-packed-vec-raw-used", 1 },
	};
	const bool usable = gv_rx_path_usable(GV_RX_VEC_SSE);

	(void)state;
	fz_pmd_vec_mode = GV_VEC_ON;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned int runs = fz_pmd_vec_packed_runs, broken = fz_pmd_vec_broken;
		char path[512];

		snprintf(path, sizeof(path), "%s/corpus/fuzz_pmd/%s", GV_FUZZ_DIR, cases[i].seed);
		replay(path);
		print_message("%s: %u vector run(s) on a packed ring, %u broke rx queue 0\n",
			      cases[i].seed, fz_pmd_vec_packed_runs - runs, fz_pmd_vec_broken - broken);
		assert_int_equal(fz_pmd_vec_packed_runs - runs, usable ? 1 : 0);
		assert_int_equal(fz_pmd_vec_broken - broken, usable ? cases[i].breaks : 0);
	}
	fz_pmd_vec_mode = GV_VEC_OFF;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_csum_odd_offset),
		cmocka_unit_test(test_rx_vlan_strip_runt),
		cmocka_unit_test(test_tx_header_with_hash_report),
		cmocka_unit_test(test_rx_refill_on_broken_queue),
		cmocka_unit_test(test_config_mac_multicast),
		cmocka_unit_test(test_legacy_ring_size),
		cmocka_unit_test(test_rx_vec_mrg_num_buffers),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_corpus_vectorized),
		cmocka_unit_test(test_corpus_rx_hdr),
		cmocka_unit_test(test_packed_vec_hostile),
	};
	int argc = 1;
	char *argv0[] = { "test_pmd_hostile", NULL };
	char **argv = argv0;

	LLVMFuzzerInitialize(&argc, &argv);
	fz_pmd_vec_mode = GV_VEC_OFF; /* the findings replay on the paths they broke */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
