/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_devargs.c - libFuzzer target: the devargs parsers of the
 * net_gvirtio_user vdev and of the net_gvirtio PCI device
 * (drivers/net/virtio/gv_devargs.c) on arbitrary strings, with DPDK's own
 * rte_kvargs, rte_ether_unformat_addr and rte_log (shared libraries, no
 * EAL initialisation: the log works from its constructor). Log lines are
 * formatted, then go to /dev/null.
 *
 * Input: the devargs string (up to the first NUL), as the EAL would hand
 * it over from --vdev net_gvirtio_user0,<string>.
 *
 * Invariants (abort on violation):
 *  - no crash, over-read or leak (ASan, UBSan);
 *  - on success every value is within its documented range (gv_devargs.h):
 *    path 1..107 bytes and NUL-terminated, queues 1..16, queue_size
 *    2..32768, a unicast MAC if given, datapath one of the four (PCI: no
 *    path or server, queues 0..16);
 *  - the result does not depend on the previous contents of the output;
 *  - printing the result back as devargs and parsing that gives the same
 *    values (what was accepted means what it says).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "fuzz_util.h"
#include "gv_devargs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Defined by gv_ethdev.c in the PMD; the parser logs with it. */
int gv_logtype;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	FILE *null = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	gv_logtype = rte_log_register_type_and_pick_level("pmd.net.gvirtio", RTE_LOG_DEBUG);
	if (gv_logtype < 0)
		abort();
	rte_log_set_level(gv_logtype, RTE_LOG_DEBUG);
	if (null)
		rte_openlog_stream(null);
	return 0;
}

static bool same(const struct gv_user_args *a, const struct gv_user_args *b)
{
	return !strcmp(a->path, b->path) && a->have_path == b->have_path &&
	       a->server == b->server && a->ring.packed == b->ring.packed &&
	       a->ring.mrg == b->ring.mrg && a->ring.in_order == b->ring.in_order &&
	       a->queues == b->queues && a->queue_size == b->queue_size && a->speed == b->speed &&
	       a->have_mac == b->have_mac &&
	       (!a->have_mac || rte_is_same_ether_addr(&a->mac, &b->mac)) &&
	       a->ring.force == b->ring.force && a->ring.vec_mode == b->ring.vec_mode &&
	       a->ring.rx_hdr == b->ring.rx_hdr;
}

/* pci: the PCI device's keys (no path; queues 0 = every pair). */
static void check_ranges(const struct gv_user_args *a, bool pci)
{
	size_t plen = strnlen(a->path, sizeof(a->path));

	if (pci)
		FZ_CHECK(!a->have_path && !a->server, "path/server accepted for a PCI device");
	else
		FZ_CHECK(a->have_path && plen >= 1 && plen < GV_USER_SUN_PATH, "path of %zu bytes",
			 plen);
	FZ_CHECK(a->queues >= (pci ? 0u : 1u) && a->queues <= GV_MAX_QUEUE_PAIRS, "queues %u",
		 a->queues);
	FZ_CHECK(a->queue_size >= GV_USER_QUEUE_MIN && a->queue_size <= GV_USER_QUEUE_MAX,
		 "queue_size %u", a->queue_size);
	FZ_CHECK(!a->have_mac || !rte_is_multicast_ether_addr(&a->mac), "multicast mac accepted");
	FZ_CHECK(a->ring.force >= GV_FORCE_NONE && a->ring.force <= GV_FORCE_FULL, "datapath %d",
		 a->ring.force);
	FZ_CHECK(a->ring.vec_mode == GV_VEC_AUTO || a->ring.vec_mode == GV_VEC_OFF ||
			 a->ring.vec_mode == GV_VEC_ON,
		 "vectorized %d", a->ring.vec_mode);
	FZ_CHECK(a->ring.rx_hdr == GV_RX_HDR_AUTO || a->ring.rx_hdr == GV_RX_HDR_SHARED ||
			 a->ring.rx_hdr == GV_RX_HDR_OWN,
		 "rx_hdr_line %d", a->ring.rx_hdr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { [GV_FORCE_SIMPLE] = "simple",
					     [GV_FORCE_INORDER] = "inorder",
					     [GV_FORCE_FULL] = "full" };
	static struct gv_user_args a, b;
	char *s = malloc(size + 1), *again;
	int rc, rc2;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&a, 0xa5, sizeof(a));
	rc = gv_user_parse_args("net_gvirtio_user0", s, &a);
	FZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOTSUP, "parse returned %d", rc);
	memset(&b, 0x00, sizeof(b));
	rc2 = gv_user_parse_args("net_gvirtio_user0", s, &b);
	FZ_CHECK(rc2 == rc && (rc || same(&a, &b)), "the result depends on the output's old contents");
	/* The same string as a PCI device's devargs. */
	memset(&b, 0x5a, sizeof(b));
	rc2 = gv_pci_parse_args("0000:00:04.0", s, &b);
	FZ_CHECK(rc2 == 0 || rc2 == -EINVAL, "pci parse returned %d", rc2);
	if (rc2 == 0)
		check_ranges(&b, true);
	free(s);
	if (rc)
		return 0;
	check_ranges(&a, false);
	/*
	 * DPDK 22.11's rte_kvargs has its own ideas about ',', '=' and '[' in
	 * values ("path=a=b" is key "a"; a '[' runs a list to its ']'), so a
	 * path holding one cannot be printed back as devargs.
	 */
	if (strpbrk(a.path, ",=[]"))
		return 0;

	/* Print it back and parse again: the same values. */
	again = malloc(sizeof(a.path) + 256);
	if (!again)
		abort();
	snprintf(again, sizeof(a.path) + 256,
		 "server=%d,packed_vq=%d,mrg_rxbuf=%d,in_order=%d,queues=%u,queue_size=%u,speed=%u",
		 a.server, a.ring.packed, a.ring.mrg, a.ring.in_order, a.queues, a.queue_size,
		 a.speed);
	if (a.ring.force)
		snprintf(again + strlen(again), 32, ",datapath=%s", paths[a.ring.force]);
	if (a.ring.vec_mode != GV_VEC_AUTO)
		snprintf(again + strlen(again), 32, ",vectorized=%d", a.ring.vec_mode == GV_VEC_ON);
	if (a.ring.rx_hdr != GV_RX_HDR_AUTO)
		snprintf(again + strlen(again), 32, ",rx_hdr_line=%s",
			 a.ring.rx_hdr == GV_RX_HDR_SHARED ? "shared" : "own");
	if (a.have_mac) {
		strcat(again, ",mac=");
		rte_ether_format_addr(again + strlen(again), RTE_ETHER_ADDR_FMT_SIZE, &a.mac);
	}
	/*
	 * The path last: rte_kvargs reads a '[' in a value as the start of a
	 * list that runs to its ']' (or to the end), commas included.
	 */
	snprintf(again + strlen(again), sizeof(a.path) + 8, ",path=%s", a.path);
	rc = gv_user_parse_args("net_gvirtio_user0", again, &b);
	FZ_CHECK(rc == 0 && same(&a, &b), "\"%s\" does not parse back to the same values (%d)", again,
		 rc);
	free(again);
	return 0;
}
