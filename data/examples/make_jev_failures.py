"""Writes jev_failures.csv: a synthetic failure-type study (JEV App. H Table 19; docs/statistics.md §7.1
`--failure-type`).

60 pairwise items, each its own cluster, one order, gold A on even items and B on odd ones. Three
judges, all deterministic; an invalid record leaves `verdict` empty and names its failure type in
`x.failure` (valid records leave it empty):
- JEV: never fails; right except on items i % 6 == 5 (10 errors);
- GPT-6: fails on items i % 10 == 3 with `provider` (6) and i % 20 == 7 with `transport` (3);
  right elsewhere except on i % 12 == 11 (5 errors);
- Qwen: fails on i % 5 == 1 with `contract` (12), on i % 15 == 2 with `transport` (4) and on item 9
  without a type (1); right elsewhere except on i % 8 == 4 (7 errors, one of them on a failed item
  counted as the failure).
Run: python3 data/examples/make_jev_failures.py > data/examples/jev_failures.csv
"""


def gold(i):
    return "A" if i % 2 == 0 else "B"


def other(label):
    return "B" if label == "A" else "A"


def failure(judge, i):
    if judge == "GPT-6":
        return "provider" if i % 10 == 3 else "transport" if i % 20 == 7 else None
    if judge == "Qwen":
        if i == 9:
            return ""
        return "contract" if i % 5 == 1 else "transport" if i % 15 == 2 else None
    return None


def wrong(judge, i):
    return {"JEV": i % 6 == 5, "GPT-6": i % 12 == 11, "Qwen": i % 8 == 4}[judge]


print("judge,item,cluster,gold,verdict,x.failure")
for i in range(60):
    for judge in ("JEV", "GPT-6", "Qwen"):
        kind = failure(judge, i)
        if kind is not None:
            print(f"{judge},i{i:02d},c{i:02d},{gold(i)},,{kind}")
        else:
            verdict = other(gold(i)) if wrong(judge, i) else gold(i)
            print(f"{judge},i{i:02d},c{i:02d},{gold(i)},{verdict},")
