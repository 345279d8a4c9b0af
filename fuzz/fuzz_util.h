/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_util.h - what every libFuzzer target in fuzz/ shares: a reader
 * that turns the fuzzer's bytes into values (reads past the end give
 * zeros, so every input is a valid program), and FZ_CHECK, which aborts
 * with a message when an invariant fails so libFuzzer records the input
 * as a crash. Header only.
 */
#ifndef GV_FUZZ_UTIL_H
#define GV_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not assert(): must hold in every build type, NDEBUG or not. */
#define FZ_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz invariant failed (%s:%d): %s: ",  \
				__FILE__, __LINE__, #cond);                    \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline bool fz_empty(const struct fz *f)
{
	return f->n == 0;
}

static inline uint8_t fz_u8(struct fz *f)
{
	if (f->n == 0)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t lo = fz_u8(f);

	return (uint16_t)(lo | (fz_u8(f) << 8));
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t lo = fz_u16(f);

	return lo | ((uint32_t)fz_u16(f) << 16);
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t lo = fz_u32(f);

	return lo | ((uint64_t)fz_u32(f) << 32);
}

/* Copy up to `len` bytes (zero-filled past the end). */
static inline void fz_bytes(struct fz *f, void *dst, size_t len)
{
	size_t k = len < f->n ? len : f->n;

	memcpy(dst, f->p, k);
	memset((uint8_t *)dst + k, 0, len - k);
	f->p += k;
	f->n -= k;
}

#endif /* GV_FUZZ_UTIL_H */
