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

struct gv_user_args {
	char path[PATH_MAX];
	bool have_path; /* always true on success: path= is required */
	bool server, packed, mrg, in_order;
	enum gv_vec_mode vec_mode; /* vectorized=0|1 (OFF|ON), default AUTO */
	uint32_t queues; /* 1..GV_MAX_QUEUE_PAIRS, default 1 */
	uint32_t queue_size; /* GV_USER_QUEUE_MIN..GV_USER_QUEUE_MAX */
	uint32_t speed; /* Mbps, any 32-bit value */
	bool have_mac;
	struct rte_ether_addr mac; /* unicast when have_mac */
	enum gv_force_path force;
};

/*
 * Parse "key=value,..." (args may be NULL: no devargs) into *a, with the
 * defaults for what is not given. `name` is only used in log messages.
 * Returns 0, or -EINVAL (logged) for an unknown key, a missing or
 * out-of-range value, or no path.
 */
int gv_user_parse_args(const char *name, const char *args, struct gv_user_args *a);

/*
 * The devargs of a net_gvirtio PCI device: the keys above except path and
 * server; queues defaults to 0 (every pair the device has). 0 or -EINVAL.
 */
int gv_pci_parse_args(const char *name, const char *args, struct gv_user_args *a);

#endif /* GV_DEVARGS_H */
