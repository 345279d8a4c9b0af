/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_log.c - the device end's dirty-page log: gather marks per bitmap
 * word, flush with one atomic OR per word. See gv_log.h.
 */
#include "gv_log.h"

#include "gv_vqd.h"

void gv_log_set(struct gv_log *l, uint64_t *bitmap, uint64_t bits)
{
	gv_log_flush(l);
	l->bitmap = bitmap;
	l->bits = bitmap ? bits : 0;
	l->n = 0;
}

static void set_word(struct gv_log *l, uint64_t word, uint64_t mask)
{
	/* Release: the data writes before the bit that tells they happened. */
	__atomic_fetch_or(&l->bitmap[word], mask, __ATOMIC_RELEASE);
	l->atomics++;
}

void gv_log_flush(struct gv_log *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		set_word(l, l->word[i], l->mask[i]);
	l->n = 0;
}

static void cache_word(struct gv_log *l, uint64_t word, uint64_t mask)
{
	for (uint32_t i = l->n; i-- > 0;) {
		if (l->word[i] == word) {
			l->mask[i] |= mask;
			return;
		}
	}
	if (l->n == GV_LOG_CACHE)
		gv_log_flush(l);
	l->word[l->n] = word;
	l->mask[l->n] = mask;
	l->n++;
}

/* Visit the bitmap words covering the pages of a range, within the map. */
static void for_words(struct gv_log *l, uint64_t addr, uint64_t len, int now)
{
	uint64_t first, last;

	if (!l->bitmap || len == 0)
		return;
	first = addr >> GV_LOG_PAGE_SHIFT;
	last = (addr + len - 1 < addr ? UINT64_MAX : addr + len - 1) >> GV_LOG_PAGE_SHIFT;
	if (first >= l->bits)
		return;
	if (last >= l->bits)
		last = l->bits - 1;
	while (first <= last) {
		uint64_t word = first >> 6;
		uint64_t hi = (word << 6) + 63 < last ? (word << 6) + 63 : last;
		unsigned lo_bit = (unsigned)(first & 63), hi_bit = (unsigned)(hi & 63);
		uint64_t mask = (hi_bit == 63 ? ~0ull : ((1ull << (hi_bit + 1)) - 1)) &
				~((1ull << lo_bit) - 1);

		l->marks += hi - first + 1;
		if (now)
			set_word(l, word, mask);
		else
			cache_word(l, word, mask);
		if (hi == UINT64_MAX)
			break;
		first = hi + 1;
	}
}

void gv_log_mark(struct gv_log *l, uint64_t addr, uint64_t len)
{
	for_words(l, addr, len, 0);
}

void gv_log_mark_now(struct gv_log *l, uint64_t addr, uint64_t len)
{
	for_words(l, addr, len, 1);
}
