# SPDX-License-Identifier: BSD-3-Clause
"""bench/pmd_stats.py - the small statistics the benchmark reports share
(stdlib only): the median that skips missing values, and the sign test
that says whether one side of paired rounds won more often than chance.

Why a sign test: this machine's speed swings up to 3x within an hour, so
single rounds' ratios spread widely (0.46-1.76 around a median near 1 on
one row of a 30-round run). The test assumes nothing about that spread, only
that with no real difference each round is as likely to go either way
(the bench alternates which driver goes first for that reason).
"""
import math
import statistics


def median(xs):
    """Median of xs, None and NaN left out; None when nothing is left."""
    xs = [x for x in xs if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return statistics.median(xs) if xs else None


def sign_test(ratios):
    """Paired rounds' ratios (A/B per round) -> (wins, n, p): in how many
    of the n rounds that were not a tie A came out ahead (ratio above 1),
    and the two-sided exact binomial p of a split at least that uneven
    if each round were a coin toss. p is None with no rounds."""
    xs = [x for x in ratios if x is not None and x != 1.0
          and not (isinstance(x, float) and math.isnan(x))]
    n = len(xs)
    wins = sum(1 for x in xs if x > 1.0)
    if n == 0:
        return wins, 0, None
    tail = sum(math.comb(n, i) for i in range(min(wins, n - wins) + 1))
    return wins, n, min(1.0, 2.0 * tail / 2 ** n)


def sign_text(wins, n, p):
    """'8 of 30, p 0.016': sign_test()'s result for a table cell ('-' with no rounds)."""
    if not n:
        return "-"
    return "%d of %d, p %.2g" % (wins, n, p)
