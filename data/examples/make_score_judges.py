#!/usr/bin/env python3
"""Writes score_judges.csv: a pointwise score-judge study on a 1–10 scale (docs/statistics.md §8.2).

60 responses to 30 prompts (cluster = prompt), two responses per prompt forming a pair (x.pair);
gold is a human score; three judges score every response: `close` is off by at most one point,
`lenient` adds two points to low scores, `noisy` is off by up to three. Deterministic (its own
linear congruential generator), so the file is the same on every run:

    python3 data/examples/make_score_judges.py > data/examples/score_judges.csv
"""

state = 20261202


def draw(n):
    """A whole number in [0, n), from a fixed LCG (Numerical Recipes constants)."""
    global state
    state = (1664525 * state + 1013904223) % 2**32
    return (state >> 16) % n


def clamp(v):
    return max(1, min(10, v))


def main():
    print("judge,item,cluster,gold,verdict,x.pair")
    rows = []
    for prompt in range(30):
        for side in "ab":
            item = f"p{prompt:02d}{side}"
            gold = 1 + draw(10)
            scores = {
                "close": clamp(gold + draw(3) - 1),
                "lenient": clamp(gold + (2 if gold <= 5 else 0) + draw(3) - 1),
                "noisy": clamp(gold + draw(7) - 3),
            }
            for judge, score in scores.items():
                rows.append((judge, item, f"prompt{prompt:02d}", gold, score, f"pair{prompt:02d}"))
    rows.sort(key=lambda r: ["close", "lenient", "noisy"].index(r[0]))
    for r in rows:
        print(",".join(str(v) for v in r))


if __name__ == "__main__":
    main()
