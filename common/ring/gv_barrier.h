/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_barrier.h - memory ordering between the two ends of a queue, and the
 * single-access loads/stores of shared ring fields.
 *
 * Two policies, chosen per queue at init:
 *   GV_BARRIER_SMP        the other end is a CPU (hypervisor, vhost thread):
 *                         SMP barriers are enough and on x86 rmb/wmb are
 *                         free (TSO).
 *   GV_BARRIER_MANDATORY  the platform requires ordering against a device
 *                         (VIRTIO_F_ORDER_PLATFORM: hardware or remote
 *                         processor): full fences that also order
 *                         against non-CPU observers.
 *
 * Every helper takes the policy as an argument. Callers pass a literal
 * (the ring code is specialised per policy, see GV_RING_SPECIALISE in
 * gv_vq_priv.h) so the choice is made once per call, not per access.
 * Building with -DGV_RING_FIXED_BARRIER=<policy> hard-wires the policy;
 * the benchmark compares the two builds.
 */
#ifndef GV_BARRIER_H
#define GV_BARRIER_H

#include <stdint.h>

enum gv_barrier {
	GV_BARRIER_SMP = 0,
	GV_BARRIER_MANDATORY = 1,
};

#define gv_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__)
/* A locked add to the stack is a full barrier and cheaper than mfence. */
#define gv_smp_mb_() __asm__ __volatile__("lock; addl $0,-128(%%rsp)" ::: "memory", "cc")
#define gv_smp_rmb_() gv_compiler_barrier()
#define gv_smp_wmb_() gv_compiler_barrier()
/*
 * Against a device on coherent (write-back) memory x86 keeps loads in
 * order with loads and stores with stores even for non-CPU observers, so
 * the mandatory rmb/wmb only stop the compiler (as Linux's dma_rmb/wmb);
 * the store->load order of mb needs mfence.
 */
#define gv_io_mb_() __asm__ __volatile__("mfence" ::: "memory")
#define gv_io_rmb_() gv_compiler_barrier()
#define gv_io_wmb_() gv_compiler_barrier()
#elif defined(__aarch64__)
#define gv_smp_mb_() __asm__ __volatile__("dmb ish" ::: "memory")
#define gv_smp_rmb_() __asm__ __volatile__("dmb ishld" ::: "memory")
#define gv_smp_wmb_() __asm__ __volatile__("dmb ishst" ::: "memory")
/* Outer-shareable domain: ordered for devices, not just other CPUs. */
#define gv_io_mb_() __asm__ __volatile__("dsb sy" ::: "memory")
#define gv_io_rmb_() __asm__ __volatile__("dmb oshld" ::: "memory")
#define gv_io_wmb_() __asm__ __volatile__("dmb oshst" ::: "memory")
#else
/* Portable fallback: sequentially consistent fences for everything. */
#define gv_smp_mb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gv_smp_rmb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gv_smp_wmb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gv_io_mb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gv_io_rmb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gv_io_wmb_() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

#ifdef GV_RING_FIXED_BARRIER
#define GV_BARRIER_OF(b) ((void)(b), (enum gv_barrier)(GV_RING_FIXED_BARRIER))
#else
#define GV_BARRIER_OF(b) (b)
#endif

/*
 * Full barrier: order our earlier stores before our later loads. Needed
 * where we publish an index and then read the other side's suppression
 * field (notification decisions), the one place where store->load order
 * matters.
 */
static inline __attribute__((always_inline)) void gv_mb(enum gv_barrier b)
{
	if (GV_BARRIER_OF(b) == GV_BARRIER_SMP)
		gv_smp_mb_();
	else
		gv_io_mb_();
}

/*
 * Read barrier: after seeing the other side's index or flags move, order
 * that load before the loads of the entries it covers.
 */
static inline __attribute__((always_inline)) void gv_rmb(enum gv_barrier b)
{
	if (GV_BARRIER_OF(b) == GV_BARRIER_SMP)
		gv_smp_rmb_();
	else
		gv_io_rmb_();
}

/*
 * Write barrier: make entry contents visible before the index or flag
 * that publishes them.
 */
static inline __attribute__((always_inline)) void gv_wmb(enum gv_barrier b)
{
	if (GV_BARRIER_OF(b) == GV_BARRIER_SMP)
		gv_smp_wmb_();
	else
		gv_io_wmb_();
}

/*
 * Single-copy loads/stores of fields the other end writes or reads. The
 * 64-bit ones may cover several narrower fields at once (a packed
 * descriptor's len, id and flags), so their type may alias any other.
 */
typedef uint64_t __attribute__((may_alias)) gv_u64_any;
#define gv_load16(p) __atomic_load_n((const volatile uint16_t *)(p), __ATOMIC_RELAXED)
#define gv_load32(p) __atomic_load_n((const volatile uint32_t *)(p), __ATOMIC_RELAXED)
#define gv_load64(p) __atomic_load_n((const volatile gv_u64_any *)(p), __ATOMIC_RELAXED)
#define gv_store16(p, v) __atomic_store_n((volatile uint16_t *)(p), (uint16_t)(v), __ATOMIC_RELAXED)
#define gv_store32(p, v) __atomic_store_n((volatile uint32_t *)(p), (uint32_t)(v), __ATOMIC_RELAXED)
#define gv_store64(p, v) __atomic_store_n((volatile gv_u64_any *)(p), (uint64_t)(v), __ATOMIC_RELAXED)

#endif /* GV_BARRIER_H */
