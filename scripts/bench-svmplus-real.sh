#!/bin/sh
# SVM2+ against the plain SVM and SVM1+ on the shipped real data: the
# svm2plus experiment's final fits (one-vs-rest on digits, binary wdbc,
# linear kernels, the parameters its validation chose in the first repeat;
# RESULTS.json) on the first repeat's training split, and on digits with
# training parts of 15, 30, 60 and 80 % (n = 269 … 1 438) to show how the
# ratios grow with n. Wall time per fit (go test -bench), every fit from
# fresh caches; the lowest of COUNT runs (default 3) of 10 fits each.
# Goals (issue 5): SVM2+/SVM ≤ 1.5; SVM1+/SVM2+ ≥ 50 at n ≈ 1000.
set -e
cd "$(dirname "$0")/.."
COUNT=${COUNT:-3}
go test -run '^$' -bench 'ExperimentFinal' -benchtime 10x -count "$COUNT" -timeout 2h ./models/svmplus/ |
	awk '
	/^BenchmarkExperimentFinal\// {
		split($1, p, "/"); sub(/-[0-9]+$/, "", p[5])
		key = p[2] " " p[3]; id = p[4]; prm = p[5]; ms = $3 / 1e6
		k = key SUBSEP id SUBSEP prm
		if (!(k in best) || ms < best[k]) best[k] = ms
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	}
	END {
		printf "%-22s %-10s %10s %-26s %10s %9s %12s %12s\n", "data", "n", "SVM (ms)", "SVM2+ params", "SVM2+ (ms)", "SVM1+ (s)", "SVM2+/SVM", "SVM1+/SVM2+"
		for (i = 1; i <= nk; i++) {
			key = order[i]; split(key, kk, " ")
			svm = ""; s1 = ""
			for (k in best) { split(k, q, SUBSEP); if (q[1] != key) continue
				if (q[2] == "svm") svm = best[k]; if (q[2] == "svm1plus") s1 = best[k] }
			for (k in best) { split(k, q, SUBSEP); if (q[1] != key || q[2] != "svm2plus") continue
				s2 = best[k]
				printf "%-22s %-10s %10.2f %-26s %10.2f %9.3f %12.2f %12.1f\n", kk[1], kk[2], svm, q[3], s2, s1 / 1000, s2 / svm, s1 / s2 }
		}
	}'
