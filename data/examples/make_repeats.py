"""Writes repeats.csv: a synthetic stability study (docs/statistics.md §8.5).

30 pairwise items in 15 source clusters (two items each), gold A or B. Two probability judges,
deterministic: every item is judged in both orders (verdicts and probabilities canonical), three
times (repeat 0, 1, 2) in the plain rubric, and once more in a paraphrased rubric (variant
'para', order 0, repeat 0). Each record's p.A is the item's base value plus a judge's shifts:
- calm: repeats move p.A by at most 0.01, order 1 by 0 to -0.03, the paraphrase by +0.02;
- jittery: repeats move p.A by up to 0.12, order 1 by 0 to -0.16, the paraphrase by +0.08.
The verdict is the label with the larger probability (A at 0.5), so both are valid throughout.
Run: python3 data/examples/make_repeats.py > data/examples/repeats.csv
"""


def base(i):
    return 0.05 + 0.9 * ((i * 37) % 100) / 99


SHIFTS = {  # judge: (repeat shift of (i, r), order-1 shift of i, paraphrase shift)
    "calm": (lambda i, r: 0.01 * ((i * (r + 1)) % 3 - 1), lambda i: -0.01 * (i % 4), 0.02),
    "jittery": (lambda i, r: 0.06 * ((i * 3 + r * 2) % 5 - 2), lambda i: -0.04 * (i % 5), 0.08),
}


def record(judge, i, order, variant, repeat):
    repeat_shift, order_shift, para_shift = SHIFTS[judge]
    p = base(i) + repeat_shift(i, repeat) + (order_shift(i) if order else 0) + (para_shift if variant == "para" else 0)
    p_a = min(0.99, max(0.01, round(p, 2)))
    verdict = "A" if p_a >= 0.5 else "B"
    gold = "A" if base(i) >= 0.5 else "B"
    return f"{judge},q{i:02d},s{i // 2:02d},{gold},{verdict},{order},{variant},{repeat},{p_a:.2f},{1 - p_a:.2f}"


print("judge,item,cluster,gold,verdict,order,variant,repeat,p.A,p.B")
for judge in SHIFTS:
    for i in range(30):
        for order in (0, 1):
            for repeat in (0, 1, 2):
                print(record(judge, i, order, "plain", repeat))
        print(record(judge, i, 0, "para", 0))
