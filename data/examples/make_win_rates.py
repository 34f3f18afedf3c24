"""Writes win_rates.csv: a synthetic pairwise study of four systems (docs/statistics.md §8.4).

48 items, each its own cluster, each comparing two of the systems gpt-4o, claude-3, llama-3 and
mistral-7b (8 items per pair, A and B alternating); the systems behind A and B are the covariates
x.model_a and x.model_b. Gold is a human preference: the better system (gpt-4o > claude-3 > llama-3 >
mistral-7b) except on every fifth item. Two judges, each in both orders (verdicts written
canonically), all deterministic:
- gpt-judge (family openai): says gold, except that where gpt-4o lost by gold it still picks gpt-4o
  (a planted self-preference), and in order 1 of items 3, 10, 17, … (i % 7 == 3) it picks B;
- claude-judge (family anthropic): says gold, except on items 1, 7, 13, … (i % 6 == 1) where it says A.
Run: python3 data/examples/make_win_rates.py > data/examples/win_rates.csv
"""

SYSTEMS = ["gpt-4o", "claude-3", "llama-3", "mistral-7b"]  # best first
PAIRS = [(a, b) for k, a in enumerate(SYSTEMS) for b in SYSTEMS[k + 1:]]


def item(i):
    better, worse = PAIRS[i % len(PAIRS)]
    a, b = (better, worse) if (i // len(PAIRS)) % 2 == 0 else (worse, better)
    winner = better if i % 5 != 0 else worse
    return a, b, "A" if winner == a else "B"


def verdict(judge, i, order):
    a, b, gold = item(i)
    if judge == "gpt-judge":
        if order == 1 and i % 7 == 3:
            return "B"
        if "gpt-4o" in (a, b):
            return "A" if a == "gpt-4o" else "B"
        return gold
    return "A" if i % 6 == 1 else gold


print("judge,item,gold,order,verdict,x.model_a,x.model_b")
for judge in ("gpt-judge", "claude-judge"):
    for i in range(48):
        a, b, gold = item(i)
        for order in (0, 1):
            print(f"{judge},p{i:02d},{gold},{order},{verdict(judge, i, order)},{a},{b}")
