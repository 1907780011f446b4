#!/usr/bin/python3
"""Reference values for models/metrics from scikit-learn (run once with
/usr/bin/python3; the output fixtures.json is committed and read by the Go tests)."""
import json, os
import numpy as np
from sklearn import metrics as M

rng = np.random.default_rng(7)
out = {}

# multi-label: 40 rows, 6 tags, one tag never true, one never predicted
yt = (rng.random((40, 6)) < 0.3).astype(int)
yp = (rng.random((40, 6)) < 0.35).astype(int)
yt[:, 4] = 0
yp[:, 5] = 0
yp[:3] = yt[:3]  # a few exact rows
p, r, f, _ = M.precision_recall_fscore_support(yt, yp, average=None, zero_division=0)
ml = {"truth": yt.tolist(), "pred": yp.tolist(),
      "per_tag_precision": p.tolist(), "per_tag_recall": r.tolist(), "per_tag_f1": f.tolist()}
for avg in ("micro", "macro"):
    p, r, f, _ = M.precision_recall_fscore_support(yt, yp, average=avg, zero_division=0)
    ml[avg] = [float(p), float(r), float(f)]
ml["hamming"] = float(M.hamming_loss(yt, yp))
ml["subset_accuracy"] = float(M.accuracy_score(yt, yp))
out["multilabel"] = ml

# multi-class: 50 rows, 4 classes, class 3 never predicted
t = rng.integers(0, 4, 50)
q = np.where(rng.random(50) < 0.6, t, rng.integers(0, 3, 50))
q[q == 3] = 0
cl = {"truth": t.tolist(), "pred": q.tolist(), "k": 4,
      "accuracy": float(M.accuracy_score(t, q)),
      "confusion": M.confusion_matrix(t, q, labels=range(4)).tolist()}
p, r, f, _ = M.precision_recall_fscore_support(t, q, labels=range(4), average=None, zero_division=0)
cl["per_class"] = [p.tolist(), r.tolist(), f.tolist()]
for avg in ("micro", "macro"):
    p, r, f, _ = M.precision_recall_fscore_support(t, q, labels=range(4), average=avg, zero_division=0)
    cl[avg] = [float(p), float(r), float(f)]
out["classification"] = cl

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures.json"), "w") as fh:
    json.dump(out, fh, indent=0)
