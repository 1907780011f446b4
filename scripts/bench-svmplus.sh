#!/bin/sh
# SVM2+ training time against the plain SVM and SVM1+ (paper 000's speed
# claim), binary problems with n = 250 … 4000, process CPU seconds, ratios
# printed side by side. Goals: SVM2+/SVM ≤ 1.5, SVM1+/SVM2+ ≥ 50 at n ≈ 1000.
#
# Environment (optional), passed to BenchmarkTable as test flags (-svmplus.*):
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
#   LUPI_BENCH_QROWS=1  serve a low-rank Qλ by rows from its factor whatever its rank
#   LUPI_BENCH_QP_MAXN  also time SVM1+ by the dense interior-point QP (as the paper timed MOSEK) up to this n
#   LUPI_BENCH_LIMIT    wall-clock limit per SVM1+ fit in seconds (default 300)
# The SVM and SVM2+ fits are timed REPEATS times (default 3, every size) and
# the lowest CPU time kept; SVM1+, its QP solve and the eq (5) floor once.
set -e
cd "$(dirname "$0")/.."
set --
for kv in n:N zkernel:ZKERNEL C:C lambda:LAMBDA d:D xnoise:XNOISE s:S k:K limit:LIMIT qpmaxn:QP_MAXN; do
	eval "v=\${LUPI_BENCH_${kv#*:}:-}"
	if [ -n "$v" ]; then set -- "$@" "-svmplus.${kv%%:*}=$v"; fi
done
if [ "${LUPI_BENCH_QDENSE:-}" = 1 ]; then set -- "$@" -svmplus.qdense; fi
if [ "${LUPI_BENCH_QROWS:-}" = 1 ]; then set -- "$@" -svmplus.qrows; fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench '^BenchmarkTable$//^(svm|svm2plus)$' -benchtime 1x -count "${REPEATS:-3}" -timeout 6h ./models/svmplus -args "$@" >"$out"
go test -run '^$' -bench '^BenchmarkTable$//^(svm1plus|svm1plus-qp|floor)$' -benchtime 1x -count 1 -timeout 6h ./models/svmplus -args "$@" >>"$out"
echo "SVM2+ vs SVM vs SVM1+ (binary, process CPU seconds, lowest of ${REPEATS:-3}; linear kernel on X; eps = 1e-3; defaults of BenchmarkTable: latent k = 10, d = 20, X noise 1, s = 30, linear kernel on Z (zgamma = 1/s), C = 1, λ = 1, low-rank Qλ) ${*:+with $*}"
grep -E '^(FAIL|panic|--- FAIL)' "$out" || true
awk '/^BenchmarkTable\/n=/ {
	split($1, p, "/"); n = p[2]; sub(/^n=/, "", n); id = p[3]; sub(/-[0-9]+$/, "", id)
	if (!(n in seen)) { seen[n] = 1; order[++nn] = n }
	delete m; for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
	k = n SUBSEP id
	if ((k in cpu) && m["cpu-s/op"] >= cpu[k]) next
	cpu[k] = m["cpu-s/op"]; it[k] = m["it"]; sv[k] = m["SVs"]; pol[k] = m["polishes"]; deg[k] = m["degenerate"]
	stop[k] = m["stopped"]; w2[k] = m["w²"]; ql[k] = m["qλ-s"]; rank[k] = ("rank" in m) ? m["rank"] : ""
	g[k] = m["gram-cpu-s"]; ch[k] = m["chol-cpu-s"]
}
END {
	printf "%6s %10s %10s %10s %12s %12s  %s\n", "n", "SVM (s)", "SVM2+ (s)", "SVM1+ (s)", "SVM2+/SVM", "SVM1+/SVM2+", "notes"
	for (j = 1; j <= nn; j++) {
		n = order[j]; a = n SUBSEP "svm"; b = n SUBSEP "svm2plus"; c = n SUBSEP "svm1plus"; f = n SUBSEP "floor"; q = n SUBSEP "svm1plus-qp"
		r = rank[b]; if (r == "") r = (f in cpu) ? "dense" : "linear"
		note = sprintf("SVM %d it, %d SV; SVM2+ %d it, %d polishes, %d SV, ‖w‖² %.2g (Qλ %.2g s wall, rank %s); ", it[a], sv[a], it[b], pol[b], sv[b], w2[b], ql[b], r)
		if (deg[b] == 1) note = note "SVM2+ DEGENERATE (w = 0); "
		if (r == "dense" && (f in cpu)) note = note sprintf("floor of an exact eq (5): K̃ %.2g s + Cholesky of λ/C·I + K̃ %.2g s = %.3g× SVM; ", g[f], ch[f], (g[f] + ch[f]) / cpu[a])
		s1 = sprintf("%10.4g", cpu[c]); ratio = sprintf("%12.3g", cpu[c] / cpu[b])
		if (stop[c] == 1) { s1 = sprintf(">%9.4g", cpu[c]); ratio = sprintf(">%11.3g", cpu[c] / cpu[b]); note = note "SVM1+ stopped at the wall-clock limit" }
		else { note = note sprintf("SVM1+ %d it, %d polishes", it[c], pol[c]); if (deg[c] == 1) note = note " (SVM1+ DEGENERATE: w = 0)" }
		if (q in cpu) note = note sprintf("; SVM1+ by dense IPM QP (qp.Solve): %.4g s, %d it, %.3g× SVM2+", cpu[q], it[q], cpu[q] / cpu[b])
		printf "%6d %10.4g %10.4g %s %12.3g %s  %s\n", n, cpu[a], cpu[b], s1, cpu[b] / cpu[a], ratio, note
	}
}' "$out"
