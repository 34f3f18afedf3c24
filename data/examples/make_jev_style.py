"""Writes jev_style.csv: a synthetic study in the shape of JEV's (docs/papers.md runs the JEV rows on it).

Deterministic: every draw comes from a hash of its names (no random module), so the file is the same
on every machine. Four judges answer four workloads:
- RB (pairwise, orders 0 and 1, gold A/B): 9 conditions "domain/style" (chat, math, code x concise,
  normal, verbose: JEV Fig. 14's 3x3 layout), 10 items each, 3 items per cluster (a shared prompt);
- JB (pairwise, orders 0 and 1): conditions knowledge / reasoning, 60 items, human `adjudicated` on the
  items where JEV and GPT-6 disagree in order 0 and on some both-wrong items (JEV App. C, Table 9);
- HE (one order, labels supported / hallucinated): 40 items;
- RB2 (four candidates A-D shown in 4 rotations, orders 0-3): 20 items (JEV App. J, Table 26).
Judges: JEV (probabilities, fees, latencies, a few invalid outputs), GPT-6 (probabilities, dearer and
slower), G3 (probabilities) and Skywork (a reward model: verdicts only, exact score ties as `tie` on
some pairs). Every item carries x.len_a / x.len_b (words of responses A and B) and a `split` column
(select / heldout, half the clusters each) for the frozen-policy rows.
Run: python3 data/examples/make_jev_style.py > data/examples/jev_style.csv
"""
import hashlib

JUDGES = {  # name: (base skill, fee_usd per call, mean latency_s, has probabilities)
    "JEV": (0.95, 0.0002, 0.8, True),
    "GPT-6": (0.98, 0.0150, 6.0, True),
    "G3": (0.86, 0.0030, 2.5, True),
    "Skywork": (0.91, 0.0, 0.3, False),
}


def u(*names):
    """A number in [0, 1) from the names: the file's only source of variation."""
    digest = hashlib.sha256("/".join(str(n) for n in names).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def items():
    """(benchmark, item, cluster, condition, labels, orders)."""
    out = []
    for d, domain in enumerate(("chat", "math", "code")):
        for s, style in enumerate(("concise", "normal", "verbose")):
            for k in range(10):
                n = (d * 3 + s) * 10 + k
                out.append(("RB", f"rb{n:03d}", f"rbc{n // 3:02d}", f"{domain}/{style}", "AB", 2))
    for n in range(60):
        out.append(("JB", f"jb{n:03d}", f"jbc{n // 2:02d}", ("knowledge", "reasoning")[n % 2], "AB", 2))
    for n in range(40):
        out.append(("HE", f"he{n:03d}", f"hec{n // 2:02d}", "qa", ("supported", "hallucinated"), 1))
    for n in range(20):
        out.append(("RB2", f"rbb{n:03d}", f"rbbc{n:02d}", "four-way", "ABCD", 4))
    return out


def difficulty(bench, item, condition):
    hard = {"concise": 0.0, "normal": 0.05, "verbose": 0.15}.get(condition.split("/")[-1], 0.0)
    hard += {"JB": 0.12, "HE": 0.05, "RB2": 0.08}.get(bench, 0.0)
    return hard + 0.25 * u("difficulty", item) ** 3


def judgment(judge, bench, item, condition, labels, gold, order):
    """(verdict, q): the judge's canonical verdict and its probability of it."""
    skill = JUDGES[judge][0] - difficulty(bench, item, condition)
    # Orders share most of the decision (a position flip now and then).
    draw = u(judge, item) if u(judge, item, "flip", order) > 0.12 else u(judge, item, order)
    right = draw < skill
    others = [l for l in labels if l != gold]
    verdict = gold if right else others[int(u(judge, item, "other") * len(others))]
    spread = u(judge, item, order, "q")
    q = 0.55 + 0.45 * spread ** 0.4 if right else 0.51 + 0.44 * spread ** 1.5
    if spread > 0.93:
        q = 1.0
    return verdict, round(q, 4)


def probabilities(labels, verdict, q):
    rest = (1.0 - q) / (len(labels) - 1)
    return [q if l == verdict else round(rest, 6) for l in labels]


def adjudication(item, verdicts, gold):
    """JB only: the human's decision on disputed and on some both-wrong items (JEV App. C)."""
    jev, gpt = verdicts["JEV"], verdicts["GPT-6"]
    if jev != gpt or (jev != gold and u("adjudicate", item) < 0.7):
        roll = u("human", item)
        if roll < 0.15:
            return "indecisive"
        return gold if roll < 0.75 else ("B" if gold == "A" else "A")
    return ""


def main():
    all_labels = ["A", "B", "C", "D", "supported", "hallucinated"]
    print("judge,item,cluster,benchmark,condition,order,gold,verdict,"
          + ",".join(f"p.{l}" for l in all_labels)
          + ",fee_usd,latency_s,adjudicated,split,x.len_a,x.len_b")
    for bench, item, cluster, condition, labels, orders in items():
        gold = labels[int(u("gold", item) * len(labels))]
        order0 = {j: judgment(j, bench, item, condition, labels, gold, 0)[0] for j in JUDGES}
        human = adjudication(item, order0, gold) if bench == "JB" else ""
        split = "select" if u("split", cluster) < 0.5 else "heldout"
        len_a, len_b = 40 + int(400 * u("len", item, "a")), 40 + int(400 * u("len", item, "b"))
        for judge, (_, fee, latency, has_probs) in JUDGES.items():
            for order in range(orders):
                verdict, q = judgment(judge, bench, item, condition, labels, gold, order)
                probs = probabilities(labels, verdict, q) if has_probs else None
                if judge == "JEV" and u("invalid", item, order) < 0.02:
                    verdict, probs = "", None  # a failed call: no verdict (invalid)
                if judge == "Skywork" and len(labels) == 2 and u("tie", item) < 0.04:
                    verdict = "tie"  # exactly equal reward scores
                cells = {l: "" for l in all_labels}
                if probs:
                    cells.update({l: f"{p:.6g}" for l, p in zip(labels, probs)})
                call_fee = f"{fee * (0.5 + u('fee', judge, item, order)):.6f}"
                call_latency = f"{latency * (0.4 + 1.2 * u('lat', judge, item, order)):.3f}"
                print(f"{judge},{item},{cluster},{bench},{condition},{order},{gold},{verdict},"
                      + ",".join(cells[l] for l in all_labels)
                      + f",{call_fee},{call_latency},{human},{split},{len_a},{len_b}")


main()
