#!/usr/bin/python3
"""Reference fixtures for lupilab/models/svm from LIBSVM (Debian libsvm-tools).

Run from anywhere:  /usr/bin/python3 models/svm/testdata/make_fixtures.py

It writes three datasets as LIBSVM files next to this script (values printed
with %.8g, exactly as LIBSVM prints support vectors, so SVs can be matched
back to training rows), runs `svm-train -s 0 -e 1e-6 -h 1 -m 100` on each with
linear and RBF kernels at several C / gamma (and one class-weighted case), runs
`svm-predict`, and stores in fixtures.json per case:

  obj_printed  svm-train's printed "obj" (6 decimals)
  obj          ½αᵀQα − Σα recomputed in float64 from the model file's α
  rho          LIBSVM's rho, sign-normalised so that label +1 is positive
  sv, alpha    training-row indices of the support vectors and their α
  decision     Σ coef·K(sv, x) − rho for every training row (numpy, float64)
  pred         svm-predict's labels for every training row

Datasets: WDBC (sklearn's breast_cancer.csv, 30 features scaled to [-1, 1],
benign = +1), digits 3 vs 8 (sklearn's digits.csv.gz, pixels x/8 − 1,
duplicate rows dropped, 8 = +1) and a seeded synthetic 5-D problem.
"""
import gzip
import json
import os
import re
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SK = "/usr/lib/python3/dist-packages/sklearn/datasets/data"


def fmt(v):
    return "%.8g" % v


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for xi, yi in zip(X, y):
            feats = " ".join("%d:%s" % (j + 1, fmt(v)) for j, v in enumerate(xi) if float(fmt(v)) != 0.0)
            f.write("%+d %s\n" % (int(yi), feats))
    # read back exactly what LIBSVM will read
    return read_libsvm(path, X.shape[1])


def read_libsvm(path, d):
    X, y = [], []
    for line in open(path):
        parts = line.split()
        y.append(float(parts[0]))
        row = np.zeros(d)
        for p in parts[1:]:
            i, v = p.split(":")
            row[int(i) - 1] = float(v)
        X.append(row)
    return np.array(X), np.array(y)


def dedupe(X, y):
    seen, keep = set(), []
    for i, r in enumerate(X):
        k = tuple(fmt(v) for v in r)
        if k not in seen:
            seen.add(k)
            keep.append(i)
    return X[keep], y[keep]


def wdbc():
    raw = np.loadtxt(os.path.join(SK, "breast_cancer.csv"), delimiter=",", skiprows=1)
    X, t = raw[:, :30], raw[:, 30]
    lo, hi = X.min(0), X.max(0)
    X = 2 * (X - lo) / (hi - lo) - 1
    return dedupe(X, np.where(t == 1, 1.0, -1.0))


def digits38():
    with gzip.open(os.path.join(SK, "digits.csv.gz"), "rt") as f:
        raw = np.loadtxt(f, delimiter=",")
    X, t = raw[:, :64], raw[:, 64]
    m = (t == 3) | (t == 8)
    return dedupe(X[m] / 8 - 1, np.where(t[m] == 8, 1.0, -1.0))


def synth():
    rng = np.random.default_rng(20240601)
    X = rng.normal(size=(300, 5))
    f = X[:, 0] + X[:, 1] ** 2 - 1 + 0.3 * X[:, 2] * X[:, 3] + 0.4 * rng.normal(size=300)
    return dedupe(X, np.where(f > 0, 1.0, -1.0))


def kernel(kind, gamma, A, B):
    if kind == "linear":
        return A @ B.T
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * np.maximum(d, 0))


def parse_model(path):
    head, svs = {}, []
    with open(path) as f:
        for line in f:
            if line.strip() == "SV":
                break
            k, _, v = line.strip().partition(" ")
            head[k] = v
        for line in f:
            parts = line.split()
            svs.append((float(parts[0]), {int(p.split(":")[0]) - 1: float(p.split(":")[1]) for p in parts[1:]}))
    return head, svs


def run_case(name, path, X, y, kind, C, gamma, wpos=1.0, wneg=1.0):
    n, d = X.shape
    t = {"linear": 0, "rbf": 2}[kind]
    with tempfile.TemporaryDirectory() as tmp:
        mf, pf = os.path.join(tmp, "m"), os.path.join(tmp, "p")
        cmd = ["svm-train", "-s", "0", "-t", str(t), "-c", repr(C), "-g", repr(gamma), "-e", "1e-6",
               "-h", "1", "-m", "100", "-w1", repr(wpos), "-w-1", repr(wneg), path, mf]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        subprocess.run(["svm-predict", path, mf, pf], check=True, capture_output=True)
        pred = [float(v) for v in open(pf).read().split()]
        head, svs = parse_model(mf)
    labels = [int(v) for v in head["label"].split()]
    sign = 1.0 if labels[0] == 1 else -1.0  # LIBSVM's decision is for its first label
    rho = sign * float(head["rho"])
    # match support vectors back to training rows
    index = {tuple(fmt(v) for v in r): i for i, r in enumerate(X)}
    alpha = np.zeros(n)
    for coef, feats in svs:
        row = np.zeros(d)
        for j, v in feats.items():
            row[j] = v
        i = index[tuple(fmt(v) for v in row)]
        alpha[i] = sign * coef * y[i]
    assert (alpha >= -1e-15).all()
    K = kernel(kind, gamma, X, X)
    Q = (y[:, None] * y[None, :]) * K
    obj = 0.5 * alpha @ Q @ alpha - alpha.sum()
    dec = K @ (alpha * y) - rho
    obj_printed = float(re.search(r"obj = (\S+),", out).group(1))
    iters = int(re.search(r"#iter = (\d+)", out).group(1))
    sv = [int(i) for i in np.nonzero(alpha)[0]]
    return {
        "name": "%s/%s/C=%g/gamma=%g/w=%g,%g" % (name, kind, C, gamma, wpos, wneg),
        "data": os.path.basename(path), "kernel": kind, "C": C, "gamma": gamma, "wpos": wpos, "wneg": wneg,
        "obj": obj, "obj_printed": obj_printed, "rho": rho, "libsvm_iter": iters,
        "sv": sv, "alpha": [float("%.15g" % alpha[i]) for i in sv],
        "decision": [float("%.12g" % v) for v in dec], "pred": pred,
    }


def main():
    cases = []
    for name, (X, y) in [("wdbc", wdbc()), ("digits38", digits38()), ("synth", synth())]:
        path = os.path.join(HERE, name + ".libsvm")
        X, y = write_libsvm(path, X, y)
        d = X.shape[1]
        for C in (0.1, 1.0, 10.0):
            cases.append(run_case(name, path, X, y, "linear", C, 1.0 / d))
        for C in (1.0, 10.0):
            for g in (0.3 / d, 1.5 / d):
                cases.append(run_case(name, path, X, y, "rbf", C, g))
        cases.append(run_case(name, path, X, y, "rbf", 2.0, 1.0 / d, wpos=2.0, wneg=0.5))
    with open(os.path.join(HERE, "fixtures.json"), "w") as f:
        json.dump({"generator": "make_fixtures.py with " + subprocess.run(
            ["dpkg-query", "-W", "-f", "${Package} ${Version}", "libsvm-tools"], capture_output=True, text=True).stdout,
            "cases": cases}, f, indent=0)


if __name__ == "__main__":
    main()
