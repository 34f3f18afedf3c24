#!/usr/bin/env python3
"""Reference for tests/analyses/profile/test_profile.cpp (LLMBarC7SpearmanMatchesScipyOnPublishedCounts).

C7 = strict both-correct = correct_both / n per evaluator, from the counts LLMBar itself published
(data/llmbar/statistics_natural_neighbor.csv), on Natural and on Neighbor; scipy's Spearman rho of
the two rankings over all shared evaluators and its t-approximation p-value.
Run: /usr/bin/python3 tests/scripts/llmbar_c7_spearman.py   (scipy 1.10.1)"""
import csv
from scipy import stats

c7 = {"Natural": {}, "Neighbor": {}}
with open("data/llmbar/statistics_natural_neighbor.csv") as f:
    for row in csv.DictReader(f):
        c7[row["condition"]][row["judge"]] = int(row["correct_both"]) / int(row["n"])
shared = sorted(set(c7["Natural"]) & set(c7["Neighbor"]))
res = stats.spearmanr([c7["Natural"][j] for j in shared], [c7["Neighbor"][j] for j in shared])
print(f"n={len(shared)} rho={res.statistic:.17g} p_t={res.pvalue:.17g}")
