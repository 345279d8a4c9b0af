/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sdk.c - the DPDK driver-SDK headers an out-of-tree PMD needs are
 * reachable (system DPDK built with enable_driver_sdk, or fetched by
 * scripts/setup.sh into .deps/dpdk-sdk), belong to the installed DPDK,
 * and describe the same structures as the installed libraries.
 *
 * GV_DPDK_VERSION{,_YEAR,_MONTH,_MINOR} come from meson (pkg-config's
 * version of libdpdk).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_version.h>
#include <rte_ethdev.h>
#include <rte_bus_pci.h>
#include <rte_bus_vdev.h>

#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <ethdev_pci.h>
#include <bus_pci_driver.h>
#include <bus_vdev_driver.h>
#include <dev_driver.h>
#include <bus_driver.h>

#ifndef GV_DPDK_VERSION
#error "meson passes GV_DPDK_VERSION (pkg-config --modversion libdpdk)"
#endif

/* The headers are those of the version pkg-config reports. */
static void test_header_version(void **state)
{
	(void)state;
	assert_int_equal(RTE_VER_YEAR, GV_DPDK_VERSION_YEAR);
	assert_int_equal(RTE_VER_MONTH, GV_DPDK_VERSION_MONTH);
	assert_int_equal(RTE_VER_MINOR, GV_DPDK_VERSION_MINOR);
	assert_int_equal(RTE_VERSION,
		RTE_VERSION_NUM(GV_DPDK_VERSION_YEAR, GV_DPDK_VERSION_MONTH,
				GV_DPDK_VERSION_MINOR, RTE_VER_RELEASE));
}

/* ... and so is the library the test runs against. */
static void test_runtime_version(void **state)
{
	(void)state;
	assert_string_equal(rte_version(), "DPDK " GV_DPDK_VERSION);
}

/*
 * struct rte_eth_dev comes from ethdev_driver.h; librte_ethdev exports
 * rte_eth_devices[RTE_MAX_ETHPORTS]. The symbol's size in the library
 * must be what the fetched header computes, or the header is not the one
 * the library was built from.
 */
static void test_eth_dev_layout_matches_library(void **state)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	(void)state;
	assert_true(sizeof(struct rte_eth_dev) > 0);
	assert_true(offsetof(struct rte_eth_dev, data) < sizeof(struct rte_eth_dev));
	assert_int_not_equal(dladdr1(&rte_eth_devices[0], &info, (void **)&sym,
				     RTLD_DL_SYMENT), 0);
	assert_non_null(sym);
	assert_string_equal(info.dli_sname, "rte_eth_devices");
	assert_int_equal(sym->st_size,
			 (size_t)RTE_MAX_ETHPORTS * sizeof(struct rte_eth_dev));
}

/* The bus containers of the driver headers work on made-up devices. */
static void test_bus_containers(void **state)
{
	struct rte_pci_device pci;
	struct rte_vdev_device vdev;
	struct rte_eth_dev eth;

	(void)state;
	memset(&pci, 0, sizeof(pci));
	memset(&vdev, 0, sizeof(vdev));
	memset(&eth, 0, sizeof(eth));

	eth.device = &pci.device;
	assert_ptr_equal(RTE_ETH_DEV_TO_PCI(&eth), &pci);
	assert_ptr_equal(RTE_DEV_TO_PCI(&pci.device), &pci);

	vdev.device.name = "net_gvirtio0";
	eth.device = &vdev.device;
	assert_ptr_equal(RTE_ETH_DEV_TO_VDEV(&eth), &vdev);
	assert_string_equal(rte_vdev_device_name(&vdev), "net_gvirtio0");

	/* A PMD's driver structures embed the generic rte_driver. */
	assert_true(offsetof(struct rte_pci_driver, driver) + sizeof(struct rte_driver) <=
		    sizeof(struct rte_pci_driver));
	assert_true(offsetof(struct rte_vdev_driver, driver) + sizeof(struct rte_driver) <=
		    sizeof(struct rte_vdev_driver));
}

/* The internal entry points a PMD calls resolve at link time. */
static void test_internal_symbols_link(void **state)
{
	void *fns[] = {
		(void *)rte_eth_dev_allocate,
		(void *)rte_eth_dev_release_port,
		(void *)rte_eth_dev_probing_finish,
		(void *)rte_eth_dev_allocated,
		(void *)rte_vdev_register,
		(void *)rte_pci_register,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		assert_non_null(fns[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_version),
		cmocka_unit_test(test_runtime_version),
		cmocka_unit_test(test_eth_dev_layout_matches_library),
		cmocka_unit_test(test_bus_containers),
		cmocka_unit_test(test_internal_symbols_link),
	};
	return cmocka_run_group_tests_name("sdk", tests, NULL, NULL);
}
