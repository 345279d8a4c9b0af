/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_split_used.c - libFuzzer target: the core's driver end, split layout,
 * consuming what a hostile device writes (engine and invariants in
 * fuzz_vq.c).
 */
#include "fuzz_vq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_vq_run(GV_LAYOUT_SPLIT, data, size);
	return 0;
}
