// SPDX-License-Identifier: BSD-3-Clause
//
// gv_bench.cc - Google Benchmark front end. Registers the cases and calls
// the C shim (gv_bench_shim.c), which does all the ring work.
//
// Benchmark names: <case>/<layout>/<barrier>/<burst>/<ring>[/manual_time]
//   st   single thread: post `burst`, flush, device take+push+publish, reclaim;
//        timed in thread CPU time (Google Benchmark's default), not wall
//        time: on this shared machine other processes take our CPU, and
//        CPU time leaves those slices out (wall time is in the JSON too)
//   xc   cross-core streaming, driver on CPU a, device on CPU b
//   rte  DPDK rte_ring SPSC round trip between the same CPUs (layout and
//        barrier are "-": the reference for the xc rows of that burst/ring),
//        moving a 16-byte handle (address + length, what a descriptor
//        carries) each way; --gvb_rte_esize=8 moves a bare pointer instead
// Every rate counter counts descriptors: items_per_second = descriptors/s.
//
// GVB_FIXED_BARRIER (-1 default, 0 smp, 1 mandatory) selects the build:
// the fixed-policy executables register only the st rows of their policy,
// with the same names as the selectable build, so run.sh pairs them up.
//
// Extra flags (before the --benchmark_* ones):
//   --gvb_xc_total=N   descriptors per cross-core iteration (32768)
//   --gvb_cpus=A,B     driver CPU, device CPU (0,1)
//   --gvb_rte_esize=N  bytes per rte_ring element, 16 (default) or 8
//   --gvb_min_cpu_frac=F   cross-core iterations count as clean when both
//                      threads had their CPU for >= F of the wall time (0.9)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gv_bench_shim.h"

#ifndef GVB_FIXED_BARRIER
#define GVB_FIXED_BARRIER -1
#endif

namespace {

uint64_t g_xc_total = 1u << 15;
int g_drv_cpu = 0;
int g_dev_cpu = 1;
int g_ncpus = 1; // CPUs we may run on, counted before main pins itself
double g_min_cpu_frac = 0.9;
uint32_t g_rte_esize = 16;

const uint32_t kBursts[] = {1, 8, 32};
const uint32_t kRings[] = {256, 1024};
const char *const kLayoutName[] = {"split", "packed"};
const char *const kBarrierName[] = {"smp", "mandatory"};

void BM_st(benchmark::State &state, int layout, int barrier, uint32_t burst, uint32_t num)
{
	struct gvb_pair *p = gvb_pair_new(layout, barrier, num);

	if (!p) {
		state.SkipWithError("gvb_pair_new failed");
		return;
	}
	for (auto _ : state) {
		int64_t n = gvb_st_round(p, burst);
		if (n < 0) {
			state.SkipWithError("round failed (short post/take/reclaim or broken queue)");
			break;
		}
		benchmark::DoNotOptimize(n);
	}
	state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * burst);
	state.counters["burst"] = burst;
	gvb_pair_free(p);
}

double median_of(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Cross-core rows share this: one iteration = one run of g_xc_total
// descriptors, timed inside the shim, reported as manual (wall) time. The
// device thread is started and pinned once per row (gvb_xc_start), not
// per iteration.
//
// Two things make single iterations unrepresentative here: spinning rings
// flip between regimes (ring full and device-bound vs. near empty with
// cache lines bouncing), and on a shared machine either thread can lose
// its CPU to another process while the other spins. So besides the mean
// (items_per_second), the row reports ns_med: the median per-iteration
// ns/desc over the "clean" iterations, in which both threads were on
// their CPU for at least --gvb_min_cpu_frac of the wall time (all
// iterations if none was clean), and `clean`, the share of clean ones.
void xc_loop(benchmark::State &state, uint32_t burst, struct gvb_xc *s)
{
	uint64_t descs = 0, drv_idle = 0, dev_idle = 0;
	std::vector<double> ns, ns_clean, frac;

	if (!s) {
		state.SkipWithError("cannot start the cross-core session (pinning?)");
		return;
	}
	for (auto _ : state) {
		struct gvb_xc_result r = {};
		if (gvb_xc_iter(s, g_xc_total, &r) != 0) {
			state.SkipWithError("cross-core run failed (stall, bad count or broken queue)");
			break;
		}
		state.SetIterationTime(r.seconds);
		benchmark::DoNotOptimize(r.checksum);
		descs += r.descs;
		drv_idle += r.drv_idle_loops;
		dev_idle += r.dev_idle_loops;
		double v = r.seconds * 1e9 / static_cast<double>(r.descs);
		double f = std::min(r.drv_cpu_frac, r.dev_cpu_frac);
		ns.push_back(v);
		frac.push_back(f);
		if (f >= g_min_cpu_frac)
			ns_clean.push_back(v);
	}
	if (gvb_xc_stop(s) != 0 && !state.error_occurred())
		state.SkipWithError("device thread failed");
	state.SetItemsProcessed(static_cast<int64_t>(descs));
	state.counters["burst"] = burst;
	if (descs) {
		state.counters["ns_med"] = median_of(ns_clean.empty() ? ns : ns_clean);
		state.counters["ns_min"] = *std::min_element(ns.begin(), ns.end());
		state.counters["clean"] = static_cast<double>(ns_clean.size()) / ns.size();
		state.counters["cpu_frac"] = median_of(frac);
		state.counters["drv_idle/desc"] = static_cast<double>(drv_idle) / descs;
		state.counters["dev_idle/desc"] = static_cast<double>(dev_idle) / descs;
	}
}

void BM_xc(benchmark::State &state, int layout, int barrier, uint32_t burst, uint32_t num)
{
	struct gvb_pair *p = gvb_pair_new(layout, barrier, num);

	if (!p) {
		state.SkipWithError("gvb_pair_new failed");
		return;
	}
	if (g_ncpus < 2 || g_drv_cpu == g_dev_cpu)
		state.SkipWithError("needs two distinct CPUs");
	else
		xc_loop(state, burst, gvb_xc_start(p, burst, g_drv_cpu, g_dev_cpu));
	gvb_pair_free(p);
}

void BM_rte(benchmark::State &state, uint32_t burst, uint32_t num)
{
	struct gvb_rte *r = gvb_rte_new(num, g_rte_esize);

	if (!r) {
		state.SkipWithError("rte_ring_init failed");
		return;
	}
	if (g_ncpus < 2 || g_drv_cpu == g_dev_cpu)
		state.SkipWithError("needs two distinct CPUs");
	else
		xc_loop(state, burst, gvb_rte_start(r, burst, g_drv_cpu, g_dev_cpu));
	gvb_rte_free(r);
}

std::string row_name(const char *c, const char *layout, const char *barrier, uint32_t burst,
		     uint32_t num)
{
	char buf[128];
	std::snprintf(buf, sizeof(buf), "%s/%s/%s/%u/%u", c, layout, barrier, burst, num);
	return buf;
}

void register_all()
{
	for (uint32_t num : kRings)
		for (uint32_t burst : kBursts)
			for (int layout = 0; layout < 2; layout++)
				for (int barrier = 0; barrier < 2; barrier++) {
					if (GVB_FIXED_BARRIER >= 0 && barrier != GVB_FIXED_BARRIER)
						continue;
					benchmark::RegisterBenchmark(
						row_name("st", kLayoutName[layout], kBarrierName[barrier], burst, num).c_str(),
						BM_st, layout, barrier, burst, num)
						->Unit(benchmark::kNanosecond);
				}
	if (GVB_FIXED_BARRIER >= 0)
		return;
	// The reference right before the rows it is compared with, so the
	// pair is measured close together in time.
	for (uint32_t num : kRings)
		for (uint32_t burst : kBursts) {
			benchmark::RegisterBenchmark(row_name("rte", "-", "-", burst, num).c_str(), BM_rte,
						     burst, num)
				->UseManualTime()
				->Unit(benchmark::kMillisecond);
			for (int layout = 0; layout < 2; layout++)
				for (int barrier = 0; barrier < 2; barrier++)
					benchmark::RegisterBenchmark(
						row_name("xc", kLayoutName[layout], kBarrierName[barrier], burst, num).c_str(),
						BM_xc, layout, barrier, burst, num)
						->UseManualTime()
						->Unit(benchmark::kMillisecond);
		}
}

// Take our own --gvb_* flags out of argv before Google Benchmark sees it.
bool parse_own_flags(int *argc, char **argv)
{
	int out = 1;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (std::strncmp(a, "--gvb_xc_total=", 15) == 0) {
			g_xc_total = std::strtoull(a + 15, nullptr, 0);
			if (g_xc_total == 0)
				return false;
		} else if (std::strncmp(a, "--gvb_min_cpu_frac=", 19) == 0) {
			g_min_cpu_frac = std::strtod(a + 19, nullptr);
		} else if (std::strncmp(a, "--gvb_rte_esize=", 16) == 0) {
			g_rte_esize = static_cast<uint32_t>(std::strtoul(a + 16, nullptr, 0));
			if (g_rte_esize != 8 && g_rte_esize != 16)
				return false;
		} else if (std::strncmp(a, "--gvb_cpus=", 11) == 0) {
			if (std::sscanf(a + 11, "%d,%d", &g_drv_cpu, &g_dev_cpu) != 2)
				return false;
		} else {
			argv[out++] = argv[i];
		}
	}
	*argc = out;
	argv[out] = nullptr;
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	if (!parse_own_flags(&argc, argv)) {
		std::fprintf(stderr, "usage: %s [--gvb_xc_total=N] [--gvb_cpus=A,B] [--gvb_min_cpu_frac=F] "
			     "[--gvb_rte_esize=8|16] "
			     "[--benchmark_*]\n",
			     argv[0]);
		return 2;
	}
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 2;
	g_ncpus = gvb_ncpus();
	// Single-thread rows run on the driver CPU too.
	if (gvb_pin_self(g_drv_cpu) != 0)
		std::fprintf(stderr, "warning: cannot pin to CPU %d\n", g_drv_cpu);
	const char *variant = GVB_FIXED_BARRIER < 0	    ? "selectable"
			      : GVB_FIXED_BARRIER == 0 ? "fixed_smp"
						       : "fixed_mandatory";
	benchmark::AddCustomContext("gvb_variant", variant);
	benchmark::AddCustomContext("gvb_xc_total", std::to_string(g_xc_total));
	benchmark::AddCustomContext("gvb_rte_esize", std::to_string(g_rte_esize));
	benchmark::AddCustomContext("gvb_cpus", std::to_string(g_drv_cpu) + "," + std::to_string(g_dev_cpu));
	register_all();
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
