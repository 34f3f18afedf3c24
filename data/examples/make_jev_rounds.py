"""Writes jev_rounds.csv: JEV's nine-round GSM8K control (JEV §3, App. A, Fig. 19; docs/statistics.md §8.5).

Twelve conversations in which a model answers a GSM8K question and is asked to reconsider eight
times; every round's latest reply is judged by JEV against the visible numeric reference, with the
labels correct, incorrect and no_answer. Each conversation is an item (its own cluster) and each
round a variant (round1 … round9), so `repeats` compares a conversation's rounds (the variant
family) and `repeats --plots` draws each conversation's probability of the gold label across the
rounds (repeats_members_JEV_variant, JEV Fig. 19). Every reply is reference-correct, as in the
paper's positive control; the probabilities are synthetic and deterministic (not JEV's): between
0.93 and 0.999, saturated as in the paper, with the rest split between the two other labels.
Run: python3 data/examples/make_jev_rounds.py > data/examples/jev_rounds.csv
"""

print("judge,item,cluster,benchmark,gold,verdict,variant,p.correct,p.incorrect,p.no_answer")
for c in range(12):
    for r in range(9):
        # A conversation's level, and a dip on the rounds where the reply is challenged adversarially.
        level = 0.999 - 0.004 * ((c * 5) % 7)
        dip = 0.045 * ((c * 3 + r * 7) % 11 == 0) + 0.012 * ((c + r) % 4 == 1)
        p = round(max(0.93, level - dip), 3)
        wrong = round((1 - p) * (0.6 + 0.1 * (r % 3)), 4)
        none = round(1 - p - wrong, 4)
        print(f"JEV,gsm{c:02d},gsm{c:02d},GSM8K,correct,correct,round{r + 1},{p:.3f},{wrong:.4f},{none:.4f}")
