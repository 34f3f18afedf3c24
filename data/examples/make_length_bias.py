"""Writes length_bias.csv: a synthetic pairwise study with item covariates (docs/statistics.md §8.3).

60 pairwise items in 20 clusters of 3 (a cluster is a shared prompt), order 0 only, gold A or B.
Covariates per item: x.len_a and x.len_b (the words of candidates A and B), x.subtlety (1-5, how
hard the flaw in the rejected answer is to see) and x.source (math, code or chat). Everything is
deterministic (no random numbers). Three judges:
- fair: right except on every 7th item (i % 7 == 3), whatever the lengths;
- verbose: picks the longer answer whenever the lengths differ by more than 10%; otherwise right;
- shallow: right when subtlety <= 2, wrong when subtlety = 5, and right on the even items between.
Run: python3 data/examples/make_length_bias.py > data/examples/length_bias.csv
"""


def gold(i):
    return "A" if (i * 7) % 10 < 5 else "B"


def lengths(i):
    short = 40 + (i * 37) % 160
    ratio = [0.5, 0.8, 1.0, 1.3, 2.2][i % 5]  # other answer / gold answer
    gold_len, other_len = short, round(short * ratio)
    return (gold_len, other_len) if gold(i) == "A" else (other_len, gold_len)


def subtlety(i):
    return 1 + (i * 3 + i // 5) % 5


def other(label):
    return "B" if label == "A" else "A"


def verdict(judge, i):
    right = gold(i)
    if judge == "fair":
        return other(right) if i % 7 == 3 else right
    if judge == "verbose":
        len_a, len_b = lengths(i)
        if max(len_a, len_b) > 1.1 * min(len_a, len_b):
            return "A" if len_a > len_b else "B"
        return right
    s = subtlety(i)
    if s <= 2 or (s < 5 and i % 2 == 0):
        return right
    return other(right)


print("judge,item,cluster,gold,verdict,x.len_a,x.len_b,x.subtlety,x.source")
for judge in ("fair", "verbose", "shallow"):
    for i in range(60):
        len_a, len_b = lengths(i)
        source = ("math", "code", "chat")[(i // 3) % 3]
        print(f"{judge},p{i:02d},c{i // 3:02d},{gold(i)},{verdict(judge, i)},{len_a},{len_b},{subtlety(i)},{source}")
