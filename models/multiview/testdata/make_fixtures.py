#!/usr/bin/python3
"""Reference outputs for the multiview tests (run with /usr/bin/python3).

svm_identical_views.json: a two-class RBF problem; scikit-learn's SVC (libsvm)
decision values at test points. With identical views and C_A = C_B = C,
SVM-2K's per-view decisions must equal this SVM's.
"""
import json
import numpy as np
from sklearn.svm import SVC

rng = np.random.default_rng(20051205)
n = 60
X = np.vstack([rng.normal([-0.7, 0.2], 0.8, size=(n // 2, 2)),
               rng.normal([0.8, -0.3], 0.8, size=(n // 2, 2))])
y = np.array([-1] * (n // 2) + [1] * (n // 2))
Xt = rng.uniform(-2.5, 2.5, size=(25, 2))
out = {}
for C, gamma in [(1.0, 0.5), (10.0, 2.0)]:
    clf = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-10, shrinking=False)
    clf.fit(X, y)
    out[f"C={C:g},gamma={gamma:g}"] = {
        "C": C, "gamma": gamma,
        "decision_test": clf.decision_function(Xt).tolist(),
        "decision_train": clf.decision_function(X).tolist(),
    }
json.dump({"x": X.tolist(), "y": y.tolist(), "x_test": Xt.tolist(), "fits": out},
          open("svm_identical_views.json", "w"), indent=1)
