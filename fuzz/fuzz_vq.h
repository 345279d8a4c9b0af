/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vq.h - the engine behind fuzz_split_used and fuzz_packed_used: the
 * core's driver end (gv_vq.h) against a device the fuzzer plays. See
 * fuzz_vq.c for the input format and the invariants.
 */
#ifndef GV_FUZZ_VQ_H
#define GV_FUZZ_VQ_H

#include <stddef.h>
#include <stdint.h>

#include "gv_vq.h"

/* Run one input against a queue of the given layout. Aborts on a violation. */
void fuzz_vq_run(enum gv_layout layout, const uint8_t *data, size_t size);

#endif /* GV_FUZZ_VQ_H */
