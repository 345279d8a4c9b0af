/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_loop.c - the net_gvirtio_loop vdev: devargs, probe/remove, the
 * transport ops (gv_transport.h) of an in-process software virtio-net
 * device built on the core's device end (gv_vqd.h), and the test API of
 * gv_loop.h. Packets transmitted on pair i come back on RX queue i (or
 * where RSS sends them); the work is done synchronously inside notify.
 * Packet processing is in gv_loop_net.c, control commands in
 * gv_loop_ctrl.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>

#include "gv_devargs.h"
#include "gv_loop_priv.h"

#define GV_LOOP_QUEUE_MAX 32768
#define GV_LOOP_DEFAULT_QMAX 1024
#define GV_LOOP_DRIVER_NAME "net_gvirtio_loop"

/* Always offered; MRG_RXBUF, RING_PACKED, IN_ORDER and MQ per devargs. */
#define GV_LOOP_BASE_FEATURES                                                  \
	(GV_BIT(GV_F_VERSION_1) | GV_BIT(GV_NET_F_MAC) | GV_BIT(GV_NET_F_STATUS) |  \
	 GV_BIT(GV_NET_F_MTU) | GV_BIT(GV_F_RING_EVENT_IDX) |                    \
	 GV_BIT(GV_F_RING_INDIRECT_DESC) | GV_BIT(GV_NET_F_CSUM) |               \
	 GV_BIT(GV_NET_F_GUEST_CSUM) | GV_BIT(GV_NET_F_HOST_TSO4) |              \
	 GV_BIT(GV_NET_F_HOST_TSO6) | GV_BIT(GV_NET_F_GUEST_TSO4) |              \
	 GV_BIT(GV_NET_F_GUEST_TSO6) | GV_BIT(GV_NET_F_CTRL_VQ) |                \
	 GV_BIT(GV_NET_F_CTRL_RX) | GV_BIT(GV_NET_F_CTRL_VLAN) |                 \
	 GV_BIT(GV_NET_F_CTRL_MAC_ADDR) | GV_BIT(GV_NET_F_GUEST_ANNOUNCE) |      \
	 GV_BIT(GV_NET_F_SPEED_DUPLEX))

/* What features= may add: bits the device implements. */
#define GV_LOOP_EXTRA_OK                                                       \
	(GV_LOOP_BASE_FEATURES | GV_BIT(GV_NET_F_MRG_RXBUF) |                   \
	 GV_BIT(GV_F_RING_PACKED) | GV_BIT(GV_F_IN_ORDER) | GV_BIT(GV_NET_F_MQ) |  \
	 GV_BIT(GV_NET_F_RSS) | GV_BIT(GV_NET_F_HASH_REPORT) |                    \
	 GV_BIT(GV_F_ORDER_PLATFORM) | GV_BIT(GV_F_ACCESS_PLATFORM) |             \
	 GV_BIT(GV_F_ANY_LAYOUT))

static struct gv_loop *lp_of(struct gv_hw *hw)
{
	return hw->tp;
}

/* ------------------------------------------------------ device queues -- */

static void free_queue(struct gv_loop_vq *v)
{
	free(v->d);
	free(v->stash);
	v->d = NULL;
	v->stash = NULL;
	v->st_head = v->st_count = 0;
	v->broken_logged = false;
}

/* Drop every queue (reset, stop): the device forgets the rings. */
static void forget_queues(struct gv_loop *lp, bool keep_setup)
{
	for (unsigned int i = 0; i < GV_LOOP_MAX_VQ; i++) {
		free_queue(&lp->vq[i]);
		if (!keep_setup)
			lp->vq[i].q = NULL;
	}
	lp->running = false;
	lp->rx_dirty = 0;
	lp->held.pending = false;
}

static void *xlate_va(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	/* Descriptors carry process virtual addresses (hw->use_va). */
	if (addr == 0 || addr > UINTPTR_MAX || (uint64_t)len > UINTPTR_MAX - addr)
		return NULL;
	return (void *)(uintptr_t)addr;
}

static int start_queue(struct gv_loop *lp, unsigned int idx)
{
	struct gv_loop_vq *v = &lp->vq[idx];
	struct gv_vqd_config cfg = { 0 };
	int ret;

	cfg.layout = gv_loop_has(lp, GV_F_RING_PACKED) ? GV_LAYOUT_PACKED : GV_LAYOUT_SPLIT;
	cfg.barrier = gv_loop_has(lp, GV_F_ORDER_PLATFORM) ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP;
	cfg.num = v->q->size;
	cfg.features = (gv_loop_has(lp, GV_F_RING_EVENT_IDX) ? GV_VQ_F_EVENT_IDX : 0) |
		       (gv_loop_has(lp, GV_F_RING_INDIRECT_DESC) ? GV_VQ_F_INDIRECT : 0);
	gv_vq_addrs(v->q->vq, &cfg.addrs);
	cfg.xlate = xlate_va;
	v->d = malloc(gv_vqd_state_size());
	if (!v->d)
		return -ENOMEM;
	ret = gv_vqd_init(v->d, &cfg);
	if (ret) {
		GV_LOG(ERR, "%s: device: queue %u has an unusable ring: %s", lp->name, idx,
		       strerror(-ret));
		return ret;
	}
	/* RX queues (even, below the control queue) hold chains for one packet. */
	if (idx % 2 == 0 && idx < 2u * gv_loop_vq_pairs(lp)) {
		v->stash = malloc(sizeof(struct gv_chain) * GV_LOOP_STASH);
		if (!v->stash)
			return -ENOMEM;
	}
	return 0;
}

/* ---------------------------------------------------- transport ops -- */

static int loop_get_features(struct gv_hw *hw, uint64_t *features)
{
	*features = lp_of(hw)->offered;
	return 0;
}

static int loop_set_features(struct gv_hw *hw, uint64_t f)
{
	struct gv_loop *lp = lp_of(hw);
	const uint64_t needs_cvq = GV_BIT(GV_NET_F_CTRL_RX) | GV_BIT(GV_NET_F_CTRL_VLAN) |
				   GV_BIT(GV_NET_F_GUEST_ANNOUNCE) | GV_BIT(GV_NET_F_MQ) |
				   GV_BIT(GV_NET_F_CTRL_MAC_ADDR) | GV_BIT(GV_NET_F_RSS) |
				   GV_BIT(GV_NET_F_HASH_REPORT);
	const char *why = NULL;

	if (f & ~lp->offered)
		why = "bits the device did not offer";
	else if (!(f & GV_BIT(GV_F_VERSION_1)))
		why = "no VERSION_1 (the device is modern only)";
	else if ((f & needs_cvq) && !(f & GV_BIT(GV_NET_F_CTRL_VQ)))
		why = "control features without CTRL_VQ";
	else if ((f & (GV_BIT(GV_NET_F_HOST_TSO4) | GV_BIT(GV_NET_F_HOST_TSO6))) &&
		 !(f & GV_BIT(GV_NET_F_CSUM)))
		why = "HOST_TSO without CSUM";
	else if ((f & (GV_BIT(GV_NET_F_GUEST_TSO4) | GV_BIT(GV_NET_F_GUEST_TSO6))) &&
		 !(f & GV_BIT(GV_NET_F_GUEST_CSUM)))
		why = "GUEST_TSO without GUEST_CSUM";
	if (why) {
		GV_LOG(ERR, "%s: device: FEATURES_OK refused for 0x%" PRIx64 ": %s", lp->name, f,
		       why);
		lp->features_ok = false;
		return -EINVAL;
	}
	forget_queues(lp, false);
	lp->features = f;
	lp->features_ok = true;
	lp->hdr_size = (f & GV_BIT(GV_NET_F_HASH_REPORT)) ? sizeof(struct gv_loop_hdr) : 12;
	return 0;
}

static int loop_reset(struct gv_hw *hw)
{
	struct gv_loop *lp = lp_of(hw);

	forget_queues(lp, false);
	lp->needs_reset = false;
	lp->features = 0;
	lp->features_ok = false;
	lp->status &= GV_NET_S_LINK_UP;
	memcpy(lp->mac, lp->perm_mac, 6);
	gv_loop_filters_reset(lp);
	return 0;
}

/* The virtio 1.2 virtio_net_config, as bytes. */
static int loop_read_config(struct gv_hw *hw, uint32_t off, void *dst, uint32_t len)
{
	struct gv_loop *lp = lp_of(hw);
	uint8_t cfg[24];
	uint16_t v16;
	uint32_t v32;

	memset(cfg, 0, sizeof(cfg));
	memcpy(cfg + GV_NET_CFG_MAC, lp->mac, 6);
	v16 = rte_cpu_to_le_16(lp->status);
	memcpy(cfg + GV_NET_CFG_STATUS, &v16, 2);
	v16 = rte_cpu_to_le_16(lp->max_pairs);
	memcpy(cfg + GV_NET_CFG_MAX_PAIRS, &v16, 2);
	v16 = rte_cpu_to_le_16(lp->mtu);
	memcpy(cfg + GV_NET_CFG_MTU, &v16, 2);
	v32 = rte_cpu_to_le_32(lp->speed ? lp->speed : UINT32_MAX);
	memcpy(cfg + GV_NET_CFG_SPEED, &v32, 4);
	cfg[GV_NET_CFG_DUPLEX] = lp->speed ? 0x01 : 0xff; /* full, or unknown */
	cfg[17] = GV_LOOP_KEY_MAX; /* rss_max_key_size */
	v16 = rte_cpu_to_le_16(GV_LOOP_TABLE_MAX);
	memcpy(cfg + 18, &v16, 2);
	v32 = rte_cpu_to_le_32(GV_LOOP_HASH_TYPES);
	memcpy(cfg + 20, &v32, 4);
	if (off > sizeof(cfg) || len > sizeof(cfg) - off)
		return -EINVAL;
	memcpy(dst, cfg + off, len);
	return 0;
}

static uint16_t loop_queue_max(struct gv_hw *hw, uint16_t qidx)
{
	(void)qidx;
	return lp_of(hw)->qmax;
}

static int loop_setup_queue(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_loop *lp = lp_of(hw);
	uint16_t pairs = gv_loop_vq_pairs(lp);
	bool ctrl = gv_loop_has(lp, GV_NET_F_CTRL_VQ) && q->vq_idx == 2u * pairs;

	if (!lp->features_ok || lp->running) {
		GV_LOG(ERR, "%s: device: queue %u set up %s", lp->name, q->vq_idx,
		       lp->running ? "while running" : "before FEATURES_OK");
		return -EINVAL;
	}
	if ((q->vq_idx >= 2u * pairs && !ctrl) || q->size == 0 || q->size > lp->qmax) {
		GV_LOG(ERR, "%s: device: no queue %u of size %u (%u pairs%s, at most %u entries)",
		       lp->name, q->vq_idx, q->size, pairs,
		       gv_loop_has(lp, GV_NET_F_CTRL_VQ) ? " + control" : "", lp->qmax);
		return -EINVAL;
	}
	lp->vq[q->vq_idx].q = q;
	return 0;
}

static int loop_start(struct gv_hw *hw)
{
	struct gv_loop *lp = lp_of(hw);
	int ret = 0;

	if (!lp->features_ok)
		return -EINVAL;
	if (lp->needs_reset) {
		GV_LOG(ERR, "%s: device: DEVICE_NEEDS_RESET is set: reset the device first", lp->name);
		return -EIO;
	}
	for (unsigned int i = 0; ret == 0 && i < GV_LOOP_MAX_VQ; i++)
		if (lp->vq[i].q)
			ret = start_queue(lp, i);
	if (ret) {
		forget_queues(lp, true);
		return ret;
	}
	lp->running = true;
	return 0;
}

static void loop_stop(struct gv_hw *hw)
{
	forget_queues(lp_of(hw), false);
}

static void loop_notify(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_loop *lp = lp_of(hw);
	uint16_t idx = q->vq_idx, pairs = gv_loop_vq_pairs(lp);

	if (!lp->running || lp->needs_reset || idx >= GV_LOOP_MAX_VQ || lp->vq[idx].q != q ||
	    !lp->vq[idx].d)
		return;
	if (idx == 2u * pairs) {
		if (!lp->ctrl_silent)
			gv_loop_ctrl(lp, idx);
	} else if (idx % 2 == 1) {
		gv_loop_tx(lp, idx / 2);
	}
	/* RX: buffers are used when packets arrive; nothing to do now. */
}

/* The device is there while running; the link itself is the config status. */
static bool loop_link_up(struct gv_hw *hw)
{
	return lp_of(hw)->running && !lp_of(hw)->needs_reset;
}

static void loop_free(struct gv_loop *lp)
{
	forget_queues(lp, false);
	free(lp->chain);
	free(lp->pkt);
	free(lp->seg);
	free(lp->cmd);
	free(lp);
}

static void loop_close(struct gv_hw *hw)
{
	if (!hw->tp)
		return;
	loop_free(hw->tp);
	hw->tp = NULL;
}

static const struct gv_transport_ops loop_ops = {
	.name = "loop",
	.get_features = loop_get_features,
	.set_features = loop_set_features,
	.reset = loop_reset,
	.read_config = loop_read_config,
	.queue_max = loop_queue_max,
	.setup_queue = loop_setup_queue,
	.start = loop_start,
	.stop = loop_stop,
	.notify = loop_notify,
	.link_up = loop_link_up,
	.close = loop_close,
	.ctrl = NULL, /* a real control virtqueue */
};

/* ------------------------------------------------------------ devargs -- */

#define KEY_QUEUES "queues"
#define KEY_QSIZE "queue_size"
#define KEY_FEATURES "features"
#define KEY_MAC "mac"
#define KEY_MTU "mtu"
#define KEY_SPEED "speed"
#define KEY_CTRL_SILENT "ctrl_silent"

static const char *const valid_keys[] = {
	KEY_QUEUES, KEY_QSIZE, KEY_FEATURES, KEY_MAC, KEY_MTU, KEY_SPEED, KEY_CTRL_SILENT,
	GV_RING_KEYS, NULL,
};

struct loop_args {
	uint32_t queues, queue_size, mtu, speed;
	struct gv_ring_args ring;
	bool ctrl_silent; /* a device that never answers control commands */
	uint64_t extra;
	bool have_mac;
	struct rte_ether_addr mac;
};

static int parse_features(const char *v, uint64_t *out)
{
	uint64_t n;

	if (gv_devarg_num(v, 0, UINT64_MAX, &n) || (n & ~GV_LOOP_EXTRA_OK)) {
		GV_LOG(ERR, "devarg features=%s: expected a mask (e.g. 0x%" PRIx64 ") of bits "
		       "within 0x%" PRIx64 " (RSS 60, HASH_REPORT 57, ORDER_PLATFORM 36, "
		       "ACCESS_PLATFORM 33, ANY_LAYOUT 27 and the base set)",
		       v, (uint64_t)GV_BIT(GV_NET_F_RSS), (uint64_t)GV_LOOP_EXTRA_OK);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static int parse_one(const char *key, const char *v, void *opaque)
{
	struct loop_args *a = opaque;
	int ret = gv_devarg_ring(key, v, &a->ring);

	if (ret <= 0)
		return ret;
	if (!strcmp(key, KEY_QUEUES))
		return gv_devarg_uint(key, v, 1, GV_LOOP_MAX_PAIRS, &a->queues);
	if (!strcmp(key, KEY_QSIZE))
		return gv_devarg_uint(key, v, 2, GV_LOOP_QUEUE_MAX, &a->queue_size);
	if (!strcmp(key, KEY_MTU))
		return gv_devarg_uint(key, v, 68, 65535, &a->mtu);
	if (!strcmp(key, KEY_SPEED))
		return gv_devarg_uint(key, v, 0, 0x7fffffff, &a->speed);
	if (!strcmp(key, KEY_CTRL_SILENT))
		return gv_devarg_bool(key, v, &a->ctrl_silent);
	if (!strcmp(key, KEY_FEATURES))
		return parse_features(v, &a->extra);
	if (!strcmp(key, KEY_MAC))
		return gv_devarg_mac(key, v, false, &a->mac, &a->have_mac);
	return -EINVAL;
}

static int parse_args(const char *name, const char *args, struct loop_args *a)
{
	memset(a, 0, sizeof(*a));
	a->queues = 1;
	a->queue_size = GV_LOOP_DEFAULT_QMAX;
	a->mtu = RTE_ETHER_MTU;
	gv_ring_args_defaults(&a->ring);
	return gv_devargs_each(name, args, valid_keys, parse_one, a);
}

static uint64_t offered_features(const struct loop_args *a)
{
	uint64_t f = GV_LOOP_BASE_FEATURES | a->extra;

	if (a->ring.mrg)
		f |= GV_BIT(GV_NET_F_MRG_RXBUF);
	if (a->ring.packed)
		f |= GV_BIT(GV_F_RING_PACKED);
	if (a->ring.in_order)
		f |= GV_BIT(GV_F_IN_ORDER);
	if (a->queues > 1)
		f |= GV_BIT(GV_NET_F_MQ);
	return f;
}

/* -------------------------------------------------------- probe/remove -- */

static struct gv_loop *loop_alloc(const char *name, const struct loop_args *a)
{
	struct gv_loop *lp = calloc(1, sizeof(*lp));

	if (!lp)
		return NULL;
	lp->chain = malloc(sizeof(struct gv_chain));
	lp->pkt = malloc(GV_LOOP_MAX_FRAME);
	lp->seg = malloc(GV_LOOP_SEG_BUF);
	lp->cmd = malloc(GV_LOOP_CTRL_MAX);
	if (!lp->chain || !lp->pkt || !lp->seg || !lp->cmd) {
		loop_free(lp);
		return NULL;
	}
	snprintf(lp->name, sizeof(lp->name), "%s", name);
	lp->offered = offered_features(a);
	lp->max_pairs = (uint16_t)a->queues;
	lp->qmax = (uint16_t)a->queue_size;
	lp->mtu = (uint16_t)a->mtu;
	lp->speed = a->speed;
	lp->ctrl_silent = a->ctrl_silent;
	lp->status = GV_NET_S_LINK_UP;
	if (a->have_mac)
		memcpy(lp->perm_mac, a->mac.addr_bytes, 6);
	else
		rte_eth_random_addr(lp->perm_mac);
	memcpy(lp->mac, lp->perm_mac, 6);
	gv_loop_filters_reset(lp);
	return lp;
}

static int loop_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct loop_args a;
	struct gv_loop *lp;
	struct gv_hw *hw;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		GV_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	ret = parse_args(name, rte_vdev_device_args(vdev), &a);
	if (ret)
		return ret;
	lp = loop_alloc(name, &a);
	if (!lp)
		return -ENOMEM;
	dev = rte_eth_vdev_allocate(vdev, sizeof(struct gv_hw));
	if (!dev) {
		loop_free(lp);
		return -ENOMEM;
	}
	hw = dev->data->dev_private;
	hw->tp = lp;
	gv_set_transport(hw, GV_TP_LOOP, &loop_ops);
	snprintf(hw->name, sizeof(hw->name), "%s", name);
	hw->req_queue_pairs = hw->max_queue_pairs = (uint16_t)a.queues;
	hw->queue_size = (uint16_t)RTE_MIN(a.queue_size, (uint32_t)GV_DEFAULT_QUEUE_SIZE);
	gv_ring_args_apply(hw, &a.ring);
	hw->use_va = true; /* the speed comes from the config space (SPEED_DUPLEX) */
	hw->max_mtu = (uint16_t)a.mtu;
	memcpy(hw->mac.addr_bytes, lp->mac, 6);
	ret = gv_ethdev_init(dev, hw);
	if (ret) {
		loop_close(hw);
		hw->tp_id = GV_TP_NONE;
		rte_eth_dev_release_port(dev);
		return ret;
	}
	/* Link changes come as config changes (rte_pmd_gvirtio_loop_set_link). */
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	rte_eth_dev_probing_finish(dev);
	GV_LOG(INFO, "%s: port %u, loopback device, %u queue pair(s), rings up to %u",
	       name, dev->data->port_id, lp->max_pairs, lp->qmax);
	return 0;
}

static int loop_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (!dev)
		return 0;
	return rte_eth_dev_close(dev->data->port_id);
}

/* Only in the test library (gv_loop_static), never in the plugin. */
static struct rte_vdev_driver gv_loop_driver = {
	.probe = loop_probe,
	.remove = loop_remove,
};
RTE_PMD_REGISTER_VDEV(net_gvirtio_loop, gv_loop_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_gvirtio_loop,
			      "queues=<1-16> queue_size=<2-32768> packed_vq=<0|1> mrg_rxbuf=<0|1> "
			      "in_order=<0|1> features=<hex mask> mac=<xx:xx:xx:xx:xx:xx> "
			      "mtu=<68-65535> speed=<Mbps> ctrl_silent=<0|1> "
			      "datapath=<simple|inorder|full>");


/* ------------------------------------------------------------ test API -- */

/* The loop device behind a port, or NULL. */
static struct gv_loop *port_loop(uint16_t port, struct rte_eth_dev **devp)
{
	struct rte_eth_dev *dev;
	struct gv_hw *hw;

	if (!rte_eth_dev_is_valid_port(port))
		return NULL;
	dev = &rte_eth_devices[port];
	if (!dev->device || !dev->device->driver ||
	    strcmp(dev->device->driver->name, GV_LOOP_DRIVER_NAME))
		return NULL;
	hw = dev->data->dev_private;
	if (!hw || gv_ops(hw) != &loop_ops || !hw->tp)
		return NULL;
	if (devp)
		*devp = dev;
	return hw->tp;
}

GV_LOOP_EXPORT int rte_pmd_gvirtio_loop_set_link(uint16_t port, bool up)
{
	struct rte_eth_dev *dev;
	struct gv_loop *lp = port_loop(port, &dev);
	uint16_t old;

	if (!lp)
		return -ENODEV;
	old = lp->status;
	if (up)
		lp->status |= GV_NET_S_LINK_UP;
	else
		lp->status &= (uint16_t)~GV_NET_S_LINK_UP;
	/* A config change notification: the driver re-reads the status. */
	if (old != lp->status)
		gv_config_changed(dev);
	return 0;
}

GV_LOOP_EXPORT int rte_pmd_gvirtio_loop_announce(uint16_t port)
{
	struct rte_eth_dev *dev;
	struct gv_loop *lp = port_loop(port, &dev);

	if (!lp)
		return -ENODEV;
	lp->status |= GV_NET_S_ANNOUNCE;
	gv_config_changed(dev);
	return 0;
}

GV_LOOP_EXPORT int rte_pmd_gvirtio_loop_rx_hold(uint16_t port, bool on)
{
	struct gv_loop *lp = port_loop(port, NULL);

	if (!lp)
		return -ENODEV;
	lp->rx_hold = on;
	return 0;
}

GV_LOOP_EXPORT int rte_pmd_gvirtio_loop_needs_reset(uint16_t port)
{
	struct rte_eth_dev *dev;
	struct gv_loop *lp = port_loop(port, &dev);
	struct gv_hw *hw;

	if (!lp)
		return -ENODEV;
	hw = dev->data->dev_private;
	lp->needs_reset = true;
	/* The config interrupt, as the PCI transport handles it. */
	pthread_mutex_lock(&hw->ctl_lock);
	gv_port_needs_reset(dev);
	pthread_mutex_unlock(&hw->ctl_lock);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
	return 0;
}

GV_LOOP_EXPORT int rte_pmd_gvirtio_loop_stats(uint16_t port, struct gv_loop_stats *out)
{
	struct gv_loop *lp = port_loop(port, NULL);
	const struct gv_loop_hash *h;

	if (!lp)
		return -ENODEV;
	if (!out)
		return -EINVAL;
	*out = lp->st;
	out->features = lp->features;
	out->status = lp->status;
	memcpy(out->mac, lp->mac, 6);
	out->promisc = lp->promisc;
	out->allmulti = lp->allmulti;
	out->n_uc = lp->n_uc;
	out->n_mc = lp->n_mc;
	memcpy(out->uc, lp->uc, sizeof(out->uc));
	memcpy(out->mc, lp->mc, sizeof(out->mc));
	memcpy(out->vlan, lp->vlan, sizeof(out->vlan));
	out->vq_pairs = lp->pairs;
	out->rss = lp->rss;
	h = gv_loop_has(lp, GV_NET_F_RSS) ? &lp->rss_hash : &lp->rep_hash;
	out->hash_types = h->types;
	out->rss_table_len = lp->rss ? (uint16_t)(lp->rss_mask + 1) : 0;
	return 0;
}
