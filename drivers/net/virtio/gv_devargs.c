/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_devargs.c - the devargs parser of the net_gvirtio_user vdev
 * (path, server, queues, cq, queue_size, mac, packed_vq, mrg_rxbuf,
 * in_order, vectorized, datapath, rx_hdr_line, speed, iface; see
 * gv_devargs.h) and of net_gvirtio PCI devices (the same keys without
 * path, server, cq and iface, with vdpa). Every
 * value is untrusted text: numbers are range-checked, booleans are exactly
 * 0 or 1, names one of a list, unknown keys are refused. Needs rte_kvargs,
 * rte_ether and rte_log only (fuzzed alone).
 * Its value parsers and key loop (gv_devarg_*) serve net_gvirtio_loop too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "gv_devargs.h"

#define KEY_PATH "path"
#define KEY_SERVER "server"
#define KEY_QUEUES "queues"
#define KEY_QSIZE "queue_size"
#define KEY_MAC "mac"
#define KEY_SPEED "speed"
#define KEY_CQ "cq"
#define KEY_IFACE "iface"
#define KEY_VDPA "vdpa"

/* Every key of DPDK 22.11's net_virtio_user, and gvirtio's own. */
static const char *const valid_keys[] = {
	KEY_PATH, KEY_SERVER, KEY_QUEUES, KEY_CQ, KEY_QSIZE, KEY_MAC, KEY_SPEED, KEY_IFACE,
	GV_RING_KEYS, NULL,
};

/* net_gvirtio (PCI): no socket; DPDK's net_virtio's vdpa, speed and vectorized. */
static const char *const pci_keys[] = {
	KEY_VDPA, KEY_QUEUES, KEY_QSIZE, KEY_MAC, KEY_SPEED, GV_RING_KEYS, NULL,
};

/* ------------------------------------------- shared by every parser -- */

int gv_devarg_num(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || n < min || n > max)
		return -EINVAL;
	*out = n;
	return 0;
}

int gv_devarg_uint(const char *key, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t n;

	if (gv_devarg_num(v, min, max, &n)) {
		GV_LOG(ERR, "devarg %s=%s: expected a number from %u to %u", key, v, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)n;
	return 0;
}

int gv_devarg_bool(const char *key, const char *v, bool *out)
{
	if (strcmp(v, "0") && strcmp(v, "1")) {
		GV_LOG(ERR, "devarg %s=%s: expected 0 or 1", key, v);
		return -EINVAL;
	}
	*out = v[0] == '1';
	return 0;
}

int gv_devarg_mac(const char *key, const char *v, bool allow_zero, struct rte_ether_addr *mac,
		  bool *have)
{
	if (rte_ether_unformat_addr(v, mac) || rte_is_multicast_ether_addr(mac) ||
	    (!allow_zero && rte_is_zero_ether_addr(mac))) {
		GV_LOG(ERR, "devarg %s=%s: expected a unicast address xx:xx:xx:xx:xx:xx", key, v);
		return -EINVAL;
	}
	*have = true;
	return 0;
}

int gv_devarg_datapath(const char *key, const char *v, enum gv_force_path *out)
{
	static const char *const names[] = { [GV_FORCE_SIMPLE] = "simple",
					     [GV_FORCE_INORDER] = "inorder",
					     [GV_FORCE_FULL] = "full" };

	for (unsigned int i = GV_FORCE_SIMPLE; i <= GV_FORCE_FULL; i++) {
		if (!strcmp(v, names[i])) {
			*out = (enum gv_force_path)i;
			return 0;
		}
	}
	GV_LOG(ERR, "devarg %s=%s: expected simple, inorder or full", key, v);
	return -EINVAL;
}

void gv_ring_args_defaults(struct gv_ring_args *r)
{
	*r = (struct gv_ring_args){ .mrg = true, .in_order = true, .vec_mode = GV_VEC_AUTO,
				    .force = GV_FORCE_NONE, .rx_hdr = GV_RX_HDR_AUTO };
}

int gv_devarg_ring(const char *key, const char *v, struct gv_ring_args *r)
{
	if (!strcmp(key, "packed_vq"))
		return gv_devarg_bool(key, v, &r->packed);
	if (!strcmp(key, "mrg_rxbuf"))
		return gv_devarg_bool(key, v, &r->mrg);
	if (!strcmp(key, "in_order"))
		return gv_devarg_bool(key, v, &r->in_order);
	if (!strcmp(key, "vectorized")) {
		bool on;

		if (gv_devarg_bool(key, v, &on))
			return -EINVAL;
		r->vec_mode = on ? GV_VEC_ON : GV_VEC_OFF;
		return 0;
	}
	if (!strcmp(key, "datapath"))
		return gv_devarg_datapath(key, v, &r->force);
	if (!strcmp(key, "rx_hdr_line")) {
		if (!strcmp(v, "shared") || !strcmp(v, "own")) {
			r->rx_hdr = v[0] == 's' ? GV_RX_HDR_SHARED : GV_RX_HDR_OWN;
			return 0;
		}
		GV_LOG(ERR, "devarg %s=%s: expected shared or own", key, v);
		return -EINVAL;
	}
	if (!strcmp(key, "barrier")) {
		if (!strcmp(v, "auto") || !strcmp(v, "mandatory")) {
			r->mandatory = v[0] == 'm';
			return 0;
		}
		GV_LOG(ERR, "devarg %s=%s: expected auto or mandatory", key, v);
		return -EINVAL;
	}
	return 1;
}

int gv_devargs_each(const char *name, const char *args, const char *const *keys,
		    int (*fn)(const char *key, const char *v, void *opaque), void *opaque)
{
	struct rte_kvargs *kv;
	int ret = 0;

	kv = rte_kvargs_parse(args ? args : "", NULL);
	if (!kv) {
		GV_LOG(ERR, "%s: cannot parse devargs \"%s\": expected key=value,...", name, args);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < kv->count && ret == 0; i++) {
		const char *key = kv->pairs[i].key, *v = kv->pairs[i].value;
		char valid[256] = "";
		bool known = false;

		for (unsigned int k = 0; keys[k]; k++)
			known |= !strcmp(key, keys[k]);
		if (!known) {
			for (unsigned int k = 0; keys[k]; k++)
				snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
					 k ? ", " : "", keys[k]);
			GV_LOG(ERR, "%s: unknown devarg \"%s\"; valid: %s", name, key, valid);
			ret = -EINVAL;
		} else if (!v) {
			GV_LOG(ERR, "devarg %s: needs a value", key);
			ret = -EINVAL;
		} else {
			ret = fn(key, v, opaque);
		}
	}
	rte_kvargs_free(kv);
	return ret;
}

/* ------------------------------------------ net_gvirtio_user and PCI -- */

static int parse_one(const char *key, const char *v, void *opaque)
{
	struct gv_user_args *a = opaque;
	uint32_t n;
	int ret = gv_devarg_ring(key, v, &a->ring);

	if (ret <= 0)
		return ret;
	if (!strcmp(key, KEY_PATH)) {
		if (!*v || strlen(v) >= GV_USER_SUN_PATH) {
			GV_LOG(ERR, "devarg path=%s: expected a unix socket path of 1 to %zu bytes",
			       v, GV_USER_SUN_PATH - 1);
			return -EINVAL;
		}
		snprintf(a->path, sizeof(a->path), "%s", v);
		a->have_path = true;
		return 0;
	}
	if (!strcmp(key, KEY_SERVER))
		return gv_devarg_bool(key, v, &a->server);
	if (!strcmp(key, KEY_QUEUES))
		return gv_devarg_uint(key, v, 1, GV_MAX_QUEUE_PAIRS, &a->queues);
	if (!strcmp(key, KEY_QSIZE))
		return gv_devarg_uint(key, v, GV_USER_QUEUE_MIN, GV_USER_QUEUE_MAX, &a->queue_size);
	if (!strcmp(key, KEY_SPEED)) {
		if (gv_devarg_uint(key, v, 0, UINT32_MAX, &n))
			return -EINVAL;
		a->speed = n;
		return 0;
	}
	if (!strcmp(key, KEY_MAC))
		return gv_devarg_mac(key, v, true, &a->mac, &a->have_mac);
	/*
	 * cq=1 is what DPDK's net_virtio_user needs for queues>1: a control
	 * queue emulated on this side. gvirtio always emulates one.
	 */
	if (!strcmp(key, KEY_CQ))
		return gv_devarg_bool(key, v, &a->cq);
	if (!strcmp(key, KEY_IFACE)) {
		GV_LOG(ERR, "devarg iface=%s: names the tap of the vhost-kernel transport "
		       "(path=/dev/vhost-net), which gvirtio does not have: use DPDK's "
		       "net_virtio_user for it (GVIRTIO_PREFER=dpdk)", v);
		return -ENOTSUP;
	}
	if (!strcmp(key, KEY_VDPA))
		return gv_devarg_bool(key, v, &a->vdpa);
	return -EINVAL;
}

static void defaults(struct gv_user_args *a)
{
	memset(a, 0, sizeof(*a));
	a->queues = 1;
	a->queue_size = GV_DEFAULT_QUEUE_SIZE;
	gv_ring_args_defaults(&a->ring);
}

int gv_user_parse_args(const char *name, const char *args, struct gv_user_args *a)
{
	int ret;

	defaults(a);
	ret = gv_devargs_each(name, args, valid_keys, parse_one, a);
	if (ret == 0 && !a->have_path) {
		GV_LOG(ERR, "%s: devarg path=<unix socket> is required", name);
		ret = -EINVAL;
	}
	return ret;
}

int gv_pci_parse_args(const char *name, const char *args, struct gv_user_args *a)
{
	defaults(a);
	a->queues = 0; /* as many as the device has */
	return gv_devargs_each(name, args, pci_keys, parse_one, a);
}
