"""Writes cap_style.csv: CAP-style external benchmarks for the stress rows (docs/papers.md, CAP Table 6).

Synthetic, not the paper's data. Deterministic: every draw comes from a hash of its names (no random
module), so the file is the same on every machine. The seven judges carry the CAP paper's names (as
data/examples/cap_judges.json does for `judgestat synth cap`), so configs/judgereva.json's families,
differences and judge sets apply. Two benchmarks, pairwise (gold A/B), both orders:
- JudgeBench: 40 items, conditions knowledge / reasoning (the config's C1~ and C2~ proxies), 2 items per
  cluster, variants plain, polished and padded (the augmented C5/C6 cells, n.r. in the main table), and
  `rationale_ok` on correct order-0 plain verdicts (the external C8, main_table false);
- JudgeBench-Pro: 40 items, conditions knowledge / reason, plain only, every judge less skilled (the
  stress benchmark: delta = CAP(JudgeBench) - CAP(JudgeBench-Pro)).
A judge knows an item with probability skill (then right in both orders, unless a polished / padded
variant fools it); otherwise it guesses, picking the answer shown first with probability 0.7.
Run: python3 data/examples/make_cap_style.py > data/examples/cap_style.csv
"""
import hashlib

JUDGES = {  # name: (knowledge skill, reasoning skill, fooled by polish / padding, Pro skill factor)
    "GPT-4o": (0.85, 0.80, 0.05, 0.55),
    "GPT-4o-mini": (0.80, 0.65, 0.10, 0.60),
    "Claude Sonnet 4.5": (0.80, 0.85, 0.05, 0.70),
    "Claude Haiku 4.5": (0.70, 0.70, 0.20, 0.65),
    "Gemini 2.5 Pro": (0.75, 0.80, 0.10, 0.75),
    "Gemini 2.5 Flash": (0.60, 0.55, 0.25, 0.70),
    "Llama-3.3-70B": (0.55, 0.45, 0.30, 0.80),
}


def u(*names):
    """A number in [0, 1) from the names: the file's only source of variation."""
    digest = hashlib.sha256("/".join(str(n) for n in names).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def items():
    """(benchmark, item, cluster, condition, variants)."""
    out = []
    for n in range(40):
        out.append(("JudgeBench", f"jb{n:02d}", f"jbc{n // 2:02d}", ("knowledge", "reasoning")[n % 2],
                    ("plain", "polished", "padded")))
    for n in range(40):
        out.append(("JudgeBench-Pro", f"jbp{n:02d}", f"jbpc{n // 2:02d}", ("knowledge", "reason")[n % 2],
                    ("plain",)))
    return out


def verdict(judge, bench, item, condition, variant, order, gold):
    knowledge, reasoning, fooled, pro = JUDGES[judge]
    skill = knowledge if condition == "knowledge" else reasoning
    if bench == "JudgeBench-Pro":
        skill *= pro
    other = "B" if gold == "A" else "A"
    if u(judge, item, "knows") < skill:
        return other if variant != "plain" and u(judge, item, variant) < fooled else gold
    shown_first = "A" if order == 0 else "B"
    return shown_first if u(judge, item, variant, "guess") < 0.7 else ("B" if shown_first == "A" else "A")


def main():
    print("judge,item,cluster,benchmark,condition,order,variant,gold,verdict,rationale_ok")
    for bench, item, cluster, condition, variants in items():
        gold = "A" if u("gold", item) < 0.5 else "B"
        for judge in JUDGES:
            for variant in variants:
                for order in (0, 1):
                    v = verdict(judge, bench, item, condition, variant, order, gold)
                    rationale = ""
                    if order == 0 and variant == "plain" and v == gold:
                        rationale = "1" if u(judge, item, "rationale") < 0.8 else "0"
                    print(f"{judge},{item},{cluster},{bench},{condition},{order},{variant},{gold},{v},{rationale}")


main()
