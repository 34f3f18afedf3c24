"""Writes position_no_gold.csv: a synthetic gold-free position-bias study (docs/statistics.md §8.1).

40 pairwise items, each its own cluster, judged in both orders (order 1 shows the responses
swapped; verdicts are written canonically). No gold column. Three judges, all deterministic:
- steady: answers the same label in both orders, except on items 4, 14, 24, 34 (4 flips);
- first-pick: on 24 items (i % 5 < 3) picks whichever response is shown first (A in order 0,
  B in order 1); elsewhere answers like steady;
- sloppy: answers like steady, but in order 1 of items 0, 8, 16, 24, 32 writes 'C', a label
  outside the study's {A, B} (5 of 80 records).
Run: python3 data/examples/make_position_no_gold.py > data/examples/position_no_gold.csv
"""


def preferred(i):
    return "A" if (i * 7) % 10 < 5 else "B"


def other(label):
    return "B" if label == "A" else "A"


def verdict(judge, i, order):
    steady = preferred(i) if order == 0 or i % 10 != 4 else other(preferred(i))
    if judge == "first-pick" and i % 5 < 3:
        return "A" if order == 0 else "B"
    if judge == "sloppy" and order == 1 and i % 8 == 0:
        return "C"
    return steady


print("judge,item,order,verdict")
for judge in ("steady", "first-pick", "sloppy"):
    for i in range(40):
        for order in (0, 1):
            print(f"{judge},q{i:02d},{order},{verdict(judge, i, order)}")
