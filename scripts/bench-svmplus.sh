#!/bin/sh
# SVM2+ training time against the plain SVM and SVM1+ (paper 000's speed
# claim), binary problems with n = 250 … 4000, process CPU seconds, ratios
# printed side by side. Goals: SVM2+/SVM ≤ 1.5, SVM1+/SVM2+ ≥ 50 at n ≈ 1000.
#
# Environment (optional):
#   LUPI_BENCH_N        sizes, default 250,500,1000,2000,4000
#   LUPI_BENCH_ZKERNEL  privileged kernel: linear (default; factor-form Qλ) or rbf (low-rank Qλ by pivoted
#                       Cholesky when K̃ is numerically of rank ≤ n/4, dense otherwise; the notes give the rank).
#                       With the linear one both SVM+ optima on this data are the
#                       degenerate w = 0 (a constant decision; the notes say so):
#                       the timings are of that problem. rbf gives real classifiers.
#   LUPI_BENCH_C, LUPI_BENCH_LAMBDA   regularisation (default 1, 1)
#   LUPI_BENCH_D, LUPI_BENCH_XNOISE  X dimension and noise (default 20, 1.0)
#   LUPI_BENCH_S        privileged dimension s (default 30; zgamma = 1/s)
#   LUPI_BENCH_K        latent dimension that decides the label (default 10)
#   LUPI_BENCH_QDENSE=1 exact dense Qλ only (no pivoted-Cholesky low-rank Qλ): the "before"
#   LUPI_BENCH_QP_MAXN  also time SVM1+ by the dense interior-point QP (as the paper timed MOSEK) up to this n
#   LUPI_BENCH_LIMIT    wall-clock limit per SVM1+ fit in seconds (default 300)
set -e
cd "$(dirname "$0")/.."
LUPI_BENCH_SVMPLUS=1 go test -count=1 -run '^TestBenchTable$' -v -timeout 6h ./models/svmplus |
	grep -v '^=== RUN\|^--- \|^PASS$\|^ok '
