"""Writes cap_c8_audit.csv: a synthetic audit of CAP's C8 rationale evaluator (docs/papers.md, CAP App. C).

Synthetic, not the paper's data. Deterministic: every draw comes from a hash of its names (no random
module). 120 rationales, each a correct order-0 verdict of one judge under test (the `benchmark` column:
GPT-4o, Claude Sonnet 4.5 or Gemini 2.5 Pro) on an item of one error type (`condition`: factual, logical,
overclaim, omission). Three raters label each rationale supported / unsupported:
- `human`: the reference label, also written as `gold` (so a rater's `acc` is its agreement with the human);
- `evaluator`: the C8 evaluator, agreeing with the human on about 90% (it misses some supported ones);
- `GPT-4o-rater`: a second evaluator, agreeing on about 85%.
Each rationale is its own item and cluster; one presentation (order 0).
Run: python3 data/examples/make_cap_c8_audit.py > data/examples/cap_c8_audit.csv
"""
import hashlib

JUDGES_UNDER_TEST = ("GPT-4o", "Claude Sonnet 4.5", "Gemini 2.5 Pro")
ERROR_TYPES = ("factual", "logical", "overclaim", "omission")
RATERS = {"evaluator": (0.12, 0.05), "GPT-4o-rater": (0.15, 0.12)}  # P(miss supported), P(pass unsupported)


def u(*names):
    """A number in [0, 1) from the names: the file's only source of variation."""
    digest = hashlib.sha256("/".join(str(n) for n in names).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def main():
    print("judge,item,cluster,benchmark,condition,order,gold,verdict")
    for n in range(120):
        item = f"r{n:03d}"
        under_test = JUDGES_UNDER_TEST[n % 3]
        error_type = ERROR_TYPES[(n // 3) % 4]
        human = "supported" if u("human", item) < 0.6 else "unsupported"
        rows = [("human", human)]
        for rater, (miss, passes) in RATERS.items():
            flip = u(rater, item) < (miss if human == "supported" else passes)
            label = human if not flip else ("unsupported" if human == "supported" else "supported")
            rows.append((rater, label))
        for rater, label in rows:
            print(f"{rater},{item},{item},{under_test},{error_type},0,{human},{label}")


main()
