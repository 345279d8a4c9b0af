/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_bench_shim.h - the C side of the benchmarks. Google Benchmark (C++)
 * only calls these functions; all ring work happens here, in C, against
 * the public API of the virtqueue core (gv_vq.h / gv_vqd.h).
 *
 * A "pair" is one shared ring with a driver end and a device end on it,
 * identity address translation (device address == pointer).
 */
#ifndef GV_BENCH_SHIM_H
#define GV_BENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GVB_MAX_BURST 256u

struct gvb_pair;

/*
 * layout: 0 split, 1 packed (enum gv_layout); barrier: 0 smp, 1 mandatory
 * (enum gv_barrier). Plain ints so C++ never includes the core headers.
 * NULL on failure.
 */
struct gvb_pair *gvb_pair_new(int layout, int barrier, uint32_t num);
void gvb_pair_free(struct gvb_pair *p);

/*
 * Single-thread round: the driver posts `burst` one-segment writable
 * buffers and flushes; the device takes each, pushes it back and
 * publishes; the driver reclaims them. Returns descriptors reclaimed
 * (== burst), or -1 when anything went wrong (short post/take/reclaim,
 * broken queue).
 */
int64_t gvb_st_round(struct gvb_pair *p, uint32_t burst);

/* Result of one cross-core run. */
struct gvb_xc_result {
	double seconds; /* from both threads ready to last descriptor reclaimed */
	uint64_t descs; /* descriptors that made the round trip */
	uint64_t drv_idle_loops; /* driver loops that posted and reclaimed nothing */
	uint64_t dev_idle_loops; /* device loops that found nothing to take */
	uint64_t checksum; /* sum of reclaimed cookies (keeps the work observable) */
	/*
	 * Share of the wall time each thread was on its CPU (thread CPU time
	 * / wall time). Below ~0.9 something else ran there (another process
	 * on this shared machine): the run measured the scheduler, not the ring.
	 */
	double drv_cpu_frac;
	double dev_cpu_frac;
};

/*
 * Cross-core streaming. A session starts a device thread pinned to
 * dev_cpu and pins the caller (the driver) to drv_cpu until gvb_xc_stop
 * (which restores the caller's affinity). Both spin with a pause, never
 * sleep. Each gvb_xc_iter streams `total` descriptors: the driver posts
 * whole bursts of `burst` (at most the ring size in flight) and reclaims
 * up to `burst` per loop; the device takes up to `burst`, returns them
 * and publishes. Returns 0, or -1 on error (stall, short count, broken
 * queue). One session at a time.
 */
struct gvb_xc;
struct gvb_xc *gvb_xc_start(struct gvb_pair *p, uint32_t burst, int drv_cpu, int dev_cpu);
int gvb_xc_iter(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out);
int gvb_xc_stop(struct gvb_xc *s); /* NULL ok; -1 if the device thread failed */

/*
 * Reference: the same round trip on two DPDK rte_ring SPSC rings (see the
 * comment in the .c for the shape), driven by the same session code with
 * gvb_xc_iter / gvb_xc_stop. `num` bounds what is in flight, as the ring
 * size does for the virtqueue. `esize`: bytes moved per descriptor each
 * way, 16 (address + length, what a descriptor carries) or 8 (a bare
 * pointer). No EAL needed.
 */
struct gvb_rte;
struct gvb_rte *gvb_rte_new(uint32_t num, uint32_t esize);
void gvb_rte_free(struct gvb_rte *r);
struct gvb_xc *gvb_rte_start(struct gvb_rte *r, uint32_t burst, int drv_cpu, int dev_cpu);

/* Pin the calling thread to one CPU (0 ok, -1 error). */
int gvb_pin_self(int cpu);
/* Number of CPUs the process may run on. */
int gvb_ncpus(void);

#ifdef __cplusplus
}
#endif

#endif /* GV_BENCH_SHIM_H */
