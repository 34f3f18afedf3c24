"""Writes jev_native.csv: a synthetic native-confidence study (JEV §4 and App. I; docs/statistics.md §3.2
`--native-confidence`).

JEV returns label probabilities and, beside them, a "native confidence" of its own whose formula is
not published; the paper compares it with q, the largest probability (Spearman's rho per benchmark)
and reports its error-detection AUROC. Here: 120 pairwise items, 40 each on RB, JB and HaluEval, each
its own cluster, gold A on even items and B on odd ones. RB items are judged in both orders, the
others in order 0. Two judges:
- JEV: p(gold) drawn per record (seeded), the verdict the more probable label; its native confidence
  `x.native` is q plus seeded noise of up to ±0.08, clipped to [0.5, 1], rounded to 3 places; one
  record (JB item 41) has no native value;
- GPT-6: probabilities only, no native confidence (its rows leave `x.native` empty).
Run: python3 data/examples/make_jev_native.py > data/examples/jev_native.csv
"""

import random

rng = random.Random(20261203)


def benchmark(i):
    return "RB" if i < 40 else "JB" if i < 80 else "HaluEval"


def gold(i):
    return "A" if i % 2 == 0 else "B"


def other(label):
    return "B" if label == "A" else "A"


def record(judge, i, order, native):
    p_gold = round(min(0.995, max(0.005, rng.betavariate(4 if judge == "JEV" else 3, 1.2))), 3)
    g = gold(i)
    verdict = g if p_gold > 0.5 else other(g)
    p = {g: p_gold, other(g): round(1 - p_gold, 3)}
    q = max(p.values())
    text = ""
    if native:
        text = f"{min(1.0, max(0.5, q + rng.uniform(-0.08, 0.08))):.3f}"
    return f"{judge},i{i:03d},c{i:03d},{benchmark(i)},{order},{g},{verdict},{p['A']},{p['B']},{text}"


print("judge,item,cluster,benchmark,order,gold,verdict,p.A,p.B,x.native")
for i in range(120):
    for order in (0, 1) if benchmark(i) == "RB" else (0,):
        print(record("JEV", i, order, native=i != 41))
        print(record("GPT-6", i, order, native=False))
