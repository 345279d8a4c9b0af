/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_devargs.h - the devargs of the net_gvirtio_user vdev (and of
 * net_gvirtio PCI devices, a subset): what they parse into and their
 * documented ranges. The parser (gv_devargs.c) needs only
 * rte_kvargs, rte_ether and rte_log, not EAL or ethdev, so the fuzzer
 * (fuzz/fuzz_devargs.c) links it alone.
 */
#ifndef GV_DEVARGS_H
#define GV_DEVARGS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include <rte_ether.h>

#include "gv_pmd.h"

#define GV_USER_QUEUE_MAX 32768 /* queue_size=<2-32768> */
#define GV_USER_QUEUE_MIN 2
/* path=: 1 to GV_USER_SUN_PATH - 1 bytes (it must fit sockaddr_un.sun_path) */
#define GV_USER_SUN_PATH sizeof(((struct sockaddr_un *)0)->sun_path)

/*
 * The ring layout and datapath keys every vdev of the PMD takes (and PCI
 * devices): packed_vq, mrg_rxbuf, in_order (0|1), vectorized (0|1),
 * datapath (simple|inorder|full), rx_hdr_line (shared|own), barrier
 * (auto|mandatory: mandatory barriers even where the device is a CPU, to
 * measure what ORDER_PLATFORM costs). GV_RING_KEYS lists them for a key list.
 */
#define GV_RING_KEYS \
	"packed_vq", "mrg_rxbuf", "in_order", "vectorized", "datapath", "rx_hdr_line", "barrier"

struct gv_ring_args {
	bool packed, mrg, in_order; /* default false, true, true */
	enum gv_vec_mode vec_mode; /* vectorized=0|1 (OFF|ON), default AUTO */
	enum gv_force_path force; /* datapath=, default GV_FORCE_NONE */
	enum gv_rx_hdr rx_hdr; /* rx_hdr_line=shared|own, default AUTO */
	bool mandatory; /* barrier=mandatory, default auto (false) */
};

struct gv_user_args {
	char path[PATH_MAX];
	bool have_path; /* always true on success: path= is required */
	bool server;
	struct gv_ring_args ring;
	uint32_t queues; /* 1..GV_MAX_QUEUE_PAIRS, default 1 */
	uint32_t queue_size; /* GV_USER_QUEUE_MIN..GV_USER_QUEUE_MAX */
	uint32_t speed; /* Mbps, any 32-bit value */
	bool have_mac;
	struct rte_ether_addr mac; /* unicast when have_mac */
	bool cq; /* cq=: accepted, the control queue is always emulated */
	bool vdpa; /* PCI vdpa=1: the device is left to a vDPA driver */
};

/*
 * Parse "key=value,..." (args may be NULL: no devargs) into *a, with the
 * defaults for what is not given. `name` is only used in log messages.
 * Returns 0, or -EINVAL (logged) for an unknown key, a missing or
 * out-of-range value, or no path; -ENOTSUP (logged) for iface= (the
 * vhost-kernel transport's).
 */
int gv_user_parse_args(const char *name, const char *args, struct gv_user_args *a);

/*
 * The devargs of a net_gvirtio PCI device: the keys above except path,
 * server, cq and iface, and vdpa; queues defaults to 0 (every pair the
 * device has). 0 or -EINVAL.
 */
int gv_pci_parse_args(const char *name, const char *args, struct gv_user_args *a);

/*
 * What every devargs parser of the PMD shares (net_gvirtio_loop's too).
 * Values are untrusted text; each returns 0 or -EINVAL, and all but
 * gv_devarg_num log what they expected for `key`.
 */
/* A whole decimal/hex/octal number in [min, max], no sign (no log). */
int gv_devarg_num(const char *v, uint64_t min, uint64_t max, uint64_t *out);
int gv_devarg_uint(const char *key, const char *v, uint32_t min, uint32_t max, uint32_t *out);
/* Exactly "0" or "1". */
int gv_devarg_bool(const char *key, const char *v, bool *out);
/* A unicast MAC address (00:00:00:00:00:00 only if allow_zero); *have set. */
int gv_devarg_mac(const char *key, const char *v, bool allow_zero, struct rte_ether_addr *mac,
		  bool *have);
/* simple, inorder or full. */
int gv_devarg_datapath(const char *key, const char *v, enum gv_force_path *out);
/* The defaults of struct gv_ring_args. */
void gv_ring_args_defaults(struct gv_ring_args *r);
/*
 * One of the GV_RING_KEYS into *r: 0 or -EINVAL (logged); 1 when `key` is
 * not one of them (for the caller's own keys).
 */
int gv_devarg_ring(const char *key, const char *v, struct gv_ring_args *r);

/* What the ring keys ask of negotiation and path choice, into the port. */
static inline void gv_ring_args_apply(struct gv_hw *hw, const struct gv_ring_args *r)
{
	hw->want_packed = r->packed;
	hw->want_mrg = r->mrg;
	hw->want_in_order = r->in_order;
	hw->force_path = r->force;
	hw->vec_mode = r->vec_mode;
	hw->rx_hdr = r->rx_hdr;
	hw->force_mandatory = r->mandatory;
}
/*
 * Parse "key=value,..." (args may be NULL) and hand each pair to fn, in
 * order, until one fails: a key not in `keys` (NULL-terminated; the
 * message lists them) or a key without a value is refused here.
 */
int gv_devargs_each(const char *name, const char *args, const char *const *keys,
		    int (*fn)(const char *key, const char *v, void *opaque), void *opaque);

#endif /* GV_DEVARGS_H */
