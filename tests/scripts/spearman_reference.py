#!/usr/bin/env python3
"""Reference values for tests/analyses/profile/test_spearman.cpp.

rho and the t-approximation p-value from scipy.stats.spearmanr; the exact two-sided permutation
p-value from scipy.stats.permutation_test over all n! pairings (n_resamples=inf forces the exact
test for n = 8, 9 too). Run: /usr/bin/python3 tests/scripts/spearman_reference.py (scipy 1.10.1)."""
import numpy as np
from scipy import stats

CASES = {
    # name: (x, y)
    "paper_c7_like": ([0.252, 0.148, 0.860, 0.734, 0.634, 0.623, 0.347],
                      [0.511, 0.357, 0.683, 0.664, 0.816, 0.868, 0.368]),
    "ties_both": ([1, 2, 2, 3, 4, 4, 4, 5], [2, 1, 3, 3, 5, 4, 6, 6]),
    "negative_n9": ([9, 8, 7, 6, 5, 4, 3, 2, 1], [1, 3, 2, 4, 6, 5, 8, 7, 9]),
    "perfect_n5": ([0.1, 0.2, 0.3, 0.4, 0.5], [10, 20, 30, 40, 50]),
    "weak_n6": ([0.5, 0.1, 0.9, 0.3, 0.7, 0.2], [0.4, 0.6, 0.5, 0.1, 0.3, 0.2]),
    "n12_t_only": ([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8], [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5]),
}

for name, (x, y) in CASES.items():
    x, y = np.asarray(x, float), np.asarray(y, float)
    res = stats.spearmanr(x, y)
    line = f"{name}: rho={res.statistic:.17g} p_t={res.pvalue:.17g}"
    if len(x) <= 9:
        perm = stats.permutation_test((x,), lambda a: stats.spearmanr(a, y).statistic,
                                      permutation_type="pairings", n_resamples=np.inf,
                                      alternative="two-sided")
        line += f" p_exact={perm.pvalue:.17g}"
    print(line)
