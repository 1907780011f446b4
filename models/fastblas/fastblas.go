// Package fastblas holds the few dense kernels that LUPI Lab's solvers call
// in their inner loops: a dot product, a matrix–vector product, the upper
// triangle of a Gram matrix AAᵀ, the update C += BAᵀ and the product
// update C += α·op(A)·B of tiled factorisations.
//
// Natively they are gonum's BLAS (assembly kernels on amd64 and arm64).
// Under WebAssembly gonum has no assembly, and its pure-Go kernels (one
// accumulator per dot product, blocking tuned for native caches) run 2–3×
// slower than plain loops with four accumulators, which is what this
// package uses there (Node.js, the V8 engine Chromium runs the app on:
// a 1 438×65 matrix–vector product 225 → 114 µs, the Gram matrix of
// 60 rows of 81 entries 503 → 160 µs, a 200×200×192 product 35 → 11 ms,
// EP's 64×128 tiles: GPC+ EP at n = 400 5.9 → 4.7 s). Natively gonum stays:
// the same loops made EP 1.2–1.4× slower there (GPC at n = 800: 1.45 →
// 2.07 s).
// The loop versions are compiled on every platform (loops.go), so that the
// native tests check them against gonum.
package fastblas
