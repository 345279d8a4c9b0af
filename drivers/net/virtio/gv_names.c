/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_names.c - which driver takes which device. Registers the PMD's bus
 * drivers under their names:
 *   net_gvirtio_user   vhost-user vdev (gvirtio's own name)
 *   net_virtio_user    the same driver under DPDK's name, alias virtio_user
 *   net_gvirtio        virtio-net PCI devices
 * and puts them ahead of DPDK's own virtio PMD (net_virtio, net_virtio_user)
 * whatever order EAL loaded the two plugins in: both buses give a device
 * to the first registered driver that matches (vdev: by name prefix, PCI:
 * by id, asking the next one when a probe returns 1), and EAL loads the
 * plugin folder in readdir order. So at load, each of DPDK's drivers found
 * before ours is re-registered behind them.
 *
 * GVIRTIO_PREFER=dpdk in the environment leaves DPDK's names to DPDK's
 * PMD: only net_gvirtio_user is registered, and a
 * virtio PCI device goes to net_virtio when it is loaded.
 *
 * Two copies of gvirtio in one process (an installed one and one given
 * with -d, or one linked into the application): the first registered
 * (the linked one, then -d, which EAL loads before its plugin folder)
 * keeps the names; a later copy registers nothing.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <bus_pci_driver.h>
#include <bus_vdev_driver.h>
#include <rte_common.h>

#include "gv_names.h"
#include "gv_pmd.h"

RTE_TAILQ_HEAD(gv_vdrv_list, rte_vdev_driver);
RTE_TAILQ_HEAD(gv_pdrv_list, rte_pci_driver);

#define GV_USER_NAME "net_gvirtio_user"
#define DPDK_PCI_NAME "net_virtio"
#define DPDK_USER_NAME "net_virtio_user"
#define DPDK_USER_ALIAS "virtio_user"

/* The vhost-user driver under DPDK's names (probe and remove copied at load). */
static struct rte_vdev_driver gv_user_dpdk_driver;

static struct {
	bool prefer_dpdk; /* GVIRTIO_PREFER=dpdk */
	bool bad_prefer; /* GVIRTIO_PREFER had another value */
	bool other_copy; /* a gvirtio loaded before this one has the names */
	unsigned int moved; /* DPDK drivers put behind ours */
	bool noted;
} names;

/* The shared object a function lives in ("" if unknown). */
static const char *object_of(const void *fn)
{
	Dl_info info;

	if (fn && dladdr(fn, &info) && info.dli_fname)
		return info.dli_fname;
	return "";
}

static bool name_is(const struct rte_driver *d, const char *name)
{
	return (d->name && !strcmp(d->name, name)) || (d->alias && !strcmp(d->alias, name));
}

/*
 * A driver of another copy of this PMD: gvirtio's own vdev name, whatever
 * object holds it (a plugin under any file name, or an application that
 * links the PMD statically and then loads the installed plugin).
 */
static bool other_gvirtio(const struct rte_vdev_driver *d)
{
	return name_is(&d->driver, GV_USER_NAME);
}

/*
 * Walk the vdev drivers registered before `first` (ours): DPDK's
 * net_virtio_user is re-registered behind ours; a driver of another
 * gvirtio copy means this copy steps aside (returns true).
 */
static bool order_vdev(struct rte_vdev_driver *first)
{
	struct rte_vdev_driver *d = TAILQ_PREV(first, gv_vdrv_list, next), *prev;

	for (; d; d = prev) {
		prev = TAILQ_PREV(d, gv_vdrv_list, next);
		if (other_gvirtio(d))
			return true;
		if (!names.prefer_dpdk &&
		    (name_is(&d->driver, DPDK_USER_NAME) || name_is(&d->driver, DPDK_USER_ALIAS))) {
			rte_vdev_unregister(d);
			rte_vdev_register(d);
			names.moved++;
		}
	}
	return false;
}

static void order_pci(struct rte_pci_driver *ours)
{
	struct rte_pci_driver *d = TAILQ_PREV(ours, gv_pdrv_list, next), *prev;

	for (; d; d = prev) {
		prev = TAILQ_PREV(d, gv_pdrv_list, next);
		if (!names.prefer_dpdk && name_is(&d->driver, DPDK_PCI_NAME)) {
			rte_pci_unregister(d);
			rte_pci_register(d);
			names.moved++;
		}
	}
}

bool gv_names_pci_yields(void)
{
	struct rte_pci_driver *d;

	if (!names.prefer_dpdk)
		return false;
	for (d = TAILQ_PREV(&gv_pci_driver, gv_pdrv_list, next); d;
	     d = TAILQ_PREV(d, gv_pdrv_list, next))
		if (name_is(&d->driver, DPDK_PCI_NAME))
			return true;
	for (d = TAILQ_NEXT(&gv_pci_driver, next); d; d = TAILQ_NEXT(d, next))
		if (name_is(&d->driver, DPDK_PCI_NAME))
			return true;
	return false;
}

void gv_names_note(void)
{
	if (names.noted)
		return;
	names.noted = true;
	if (names.bad_prefer)
		GV_LOG(WARNING, "GVIRTIO_PREFER=%s: expected gvirtio or dpdk; gvirtio is preferred",
		       getenv("GVIRTIO_PREFER"));
	if (names.prefer_dpdk)
		GV_LOG(NOTICE, "%s: GVIRTIO_PREFER=dpdk: drives net_gvirtio_user vdevs, and virtio "
		       "PCI devices only where DPDK's net_virtio is not loaded",
		       object_of((const void *)gv_names_note));
	else
		GV_LOG(NOTICE, "%s: drives net_gvirtio_user, net_virtio_user and virtio_user vdevs "
		       "and virtio PCI devices, ahead of DPDK's virtio PMD%s "
		       "(GVIRTIO_PREFER=dpdk leaves DPDK's names to it)",
		       object_of((const void *)gv_names_note),
		       names.moved ? " (moved behind)" : "");
}

RTE_INIT(gv_names_init)
{
	const char *pref = getenv("GVIRTIO_PREFER");

	names.prefer_dpdk = pref && !strcmp(pref, "dpdk");
	names.bad_prefer = pref && *pref && !names.prefer_dpdk && strcmp(pref, "gvirtio");

	gv_user_driver.driver.name = GV_USER_NAME;
	gv_user_driver.driver.alias = "gvirtio_user";
	rte_vdev_register(&gv_user_driver);
	if (order_vdev(&gv_user_driver)) {
		names.other_copy = true;
		rte_vdev_unregister(&gv_user_driver);
		return;
	}
	if (!names.prefer_dpdk) {
		gv_user_dpdk_driver.probe = gv_user_driver.probe;
		gv_user_dpdk_driver.remove = gv_user_driver.remove;
		gv_user_dpdk_driver.driver.name = DPDK_USER_NAME;
		gv_user_dpdk_driver.driver.alias = DPDK_USER_ALIAS;
		rte_vdev_register(&gv_user_dpdk_driver);
	}
	gv_pci_driver.driver.name = "net_gvirtio";
	rte_pci_register(&gv_pci_driver);
	order_pci(&gv_pci_driver);
}

#define GV_RING_PARAMS                                                         \
	"packed_vq=<0|1> mrg_rxbuf=<0|1> in_order=<0|1> vectorized=<0|1> "       \
	"datapath=<simple|inorder|full> rx_hdr_line=<shared|own> "
#define GV_USER_PARAMS                                                         \
	"path=<unix socket> server=<0|1> queues=<1-" RTE_STR(GV_MAX_QUEUE_PAIRS) "> cq=<0|1> " \
	"queue_size=<2-32768> mac=<xx:xx:xx:xx:xx:xx> " GV_RING_PARAMS         \
	"speed=<Mbps> iface=<tap: vhost-kernel, not supported>"

RTE_PMD_REGISTER_PARAM_STRING(net_gvirtio_user, GV_USER_PARAMS);
RTE_PMD_REGISTER_PARAM_STRING(net_virtio_user, GV_USER_PARAMS);
RTE_PMD_REGISTER_PARAM_STRING(net_gvirtio,
			      "vdpa=<0|1> queues=<1-" RTE_STR(GV_MAX_QUEUE_PAIRS) "> "
			      "queue_size=<2-32768> mac=<xx:xx:xx:xx:xx:xx> " GV_RING_PARAMS
			      "speed=<Mbps>");
RTE_PMD_REGISTER_PCI_TABLE(net_gvirtio, gv_pci_id_table);
RTE_PMD_REGISTER_KMOD_DEP(net_gvirtio, "* vfio-pci");
