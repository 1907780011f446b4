"""The two-view test problem and the RBF kernel shared by the independent
references of the two-view models: ref_mvtsvm_mcpk.py (MvTSVM, MCPK) and
models/twin/testdata/ref_mpwtsvm.py (MPWTSVM). Written without the Go code."""

import numpy as np


def rbf(A, B, gamma):
    """exp(-gamma |a - b|^2) between the rows of A and of B."""
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-gamma * d2)


def problem(seed, n, m):
    """Two views of one 2-D concept: view A 2-D, view B 3-D, each noisy;
    n training rows (labels alternate +1, -1) and m test rows."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    t = rng.normal(size=(n, 2)) + 0.9 * y[:, None] * np.array([1.0, 0.4])
    XA = t + 0.4 * rng.normal(size=(n, 2))
    XB = np.column_stack([t[:, 0] + t[:, 1], t[:, 0] - t[:, 1], rng.normal(size=n)]) + 0.5 * rng.normal(size=(n, 3))
    tt = rng.normal(size=(m, 2)) * 1.3
    TA = tt + 0.4 * rng.normal(size=(m, 2))
    TB = np.column_stack([tt[:, 0] + tt[:, 1], tt[:, 0] - tt[:, 1], rng.normal(size=m)]) + 0.5 * rng.normal(size=(m, 3))
    return XA, XB, y, TA, TB
