"""Writes jev_output_types.csv: JEV's output-type audit (JEV §7.3, App. I; docs/statistics.md §8.5).

48 pairwise examples, 16 per task (RewardBench, JudgeBench, HaluEval), each its own cluster. One
judge, JEV, is asked the same binary question in four ways; each way is a variant of the example:
- choice: a Choice between the labels A and B (p.A, p.B);
- score: a two-level Score, its probability of the level meaning A (p.A) and B (p.B);
- noul-A: the Noul question "is the correct judgment A?": p.A = its yes-probability, p.B = 1 - p.A;
- noul-B: the Noul question "is the correct judgment B?": p.B = its yes-probability, p.A = 1 - p.B.
With two labels the total variation between two variants is |p.A - p'.A|, so `repeats --variant
choice,noul-A` gives the Choice-Noul gap, `--variant choice,score` the Choice-Score gap, and
`--variant noul-A,noul-B` the Noul complement residual |yes(A) + yes(B) - 1|. The probabilities are
synthetic and deterministic (not JEV's): the gaps are near the paper's 0.055, 0.015 and 0.045, and
one close decision differs between Choice and Noul.
Run: python3 data/examples/make_jev_output_types.py > data/examples/jev_output_types.csv
"""

TASKS = ("RewardBench", "JudgeBench", "HaluEval")


def choice_a(i):
    """The Choice probability of A: mostly confident, a few close calls, none at exactly 0.5."""
    p = 0.03 + 0.94 * ((i * 41) % 97) / 96
    return p + 0.02 if abs(p - 0.5) < 0.005 else p


def clip(p):
    return min(0.99, max(0.01, round(p, 3)))


def variants(i):
    c = clip(choice_a(i))
    # Noul's yes(A) sits nearer 0.5 than Choice's p(A), on the same side except for one close call (i = 39, Choice 0.49).
    room = abs(c - 0.5) - 0.005
    shift = 0.02 + 0.07 * ((i * 7) % 5) / 4
    noul_a = clip(c + (0.03 if i == 39 else 0) + (0 if i == 39 else (1 if c < 0.5 else -1) * min(shift, room)))
    yes_b = clip(1 - noul_a + 0.0675 * (((i * 5) % 4) - 1.5) / 1.5)  # the complement misses by up to 0.07
    score = clip(c + 0.015 * (((i * 3) % 5) - 2))
    return {"choice": c, "score": score, "noul-A": noul_a, "noul-B": clip(1 - yes_b)}


print("judge,item,cluster,benchmark,gold,verdict,variant,p.A,p.B")
for i in range(48):
    task = TASKS[i // 16]
    choice_verdict = "A" if clip(choice_a(i)) >= 0.5 else "B"
    right = (i * 13) % 10 < 8  # Choice right on about four in five
    gold = choice_verdict if right else "AB".replace(choice_verdict, "")
    for variant, p_a in variants(i).items():
        verdict = "A" if p_a >= 0.5 else "B"
        print(f"JEV,o{i:02d},o{i:02d},{task},{gold},{verdict},{variant},{p_a:.3f},{1 - p_a:.3f}")
