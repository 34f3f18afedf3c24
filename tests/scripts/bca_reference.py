#!/usr/bin/env python3
"""Reference values for tests/intervals/test_bootstrap.cpp (BcaMatchesScipy).

Draws the same clustered bootstrap replicates as judgestat (docs/statistics.md §2: Philox4x32-10, key = seed,
counter = (d div 4, r, stratum, 0), cluster = (u * C) >> 32), then asks scipy for the BCa interval
of those replicates with scipy.stats._resampling._bca_interval (the function
scipy.stats.bootstrap(method='BCa') uses), treating clusters as paired observations.
Run: /usr/bin/python3 tests/scripts/bca_reference.py   (scipy 1.10.1, numpy 1.24)"""
import numpy as np
from scipy.stats._resampling import _bca_interval

M = 0xFFFFFFFF


def philox(c, k):
    c, k = list(c), list(k)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & M, p1 & M, ((p0 >> 32) ^ c[3] ^ k[1]) & M, p0 & M]
        k = [(k[0] + 0x9E3779B9) & M, (k[1] + 0xBB67AE85) & M]
    return c


# Per-cluster numerator and denominator sums (clusters 0..11), as in the C++ test.
a = np.array([3.25, 1.5, 0.125, 2.75, 3.875, 1.0, 1.375, 0.25, 2.5, 2.0, 2.625, 1.125])
b = np.array([4, 2, 1, 3, 4, 2, 3, 1, 3, 2, 4, 2], dtype=float)
C, B, seed, level = len(a), 2000, 42, 0.95
key = (seed & M, seed >> 32)
theta_b = np.empty(B)
for r in range(B):
    idx = [(philox((d // 4, r, 0, 0), key)[d % 4] * C) >> 32 for d in range(C)]
    theta_b[r] = a[idx].sum() / b[idx].sum()
stat = lambda i, axis=-1: a[i].sum(axis=axis) / b[i].sum(axis=axis)
alpha = (1 - level) / 2
a1, a2, ahat = _bca_interval((np.arange(C),), stat, -1, alpha, theta_b[None, :], batch=None)
lo, hi = np.percentile(theta_b, [float(a1) * 100, float(a2) * 100])
print(f"theta_hat {a.sum() / b.sum()!r}\nacceleration {float(ahat)!r}")
print(f"alpha_1 {float(a1)!r}\nalpha_2 {float(a2)!r}\nlo {lo!r}\nhi {hi!r}")
