// Package fastblas holds the dense kernels that LUPI Lab's solvers call in
// their inner loops:
//   - Dot, MulVec (y = Ax), AddMulT (y += Aᵀx);
//   - GramUpper (the upper triangle of AAᵀ), SyrkTUpper (S += αVᵀV, upper);
//   - AddABt (C += BAᵀ), GemmAcc (C += α·op(A)·B);
//   - TrsmLeft (B ← op(T)⁻¹B), TrsvUpper (x ← U⁻¹x or U⁻ᵀx);
//   - Potrf (the Cholesky factor of a small matrix, in place).
//
// Natively they are gonum's BLAS (assembly kernels on amd64 and arm64).
// Under WebAssembly gonum has no assembly. Its pure-Go kernels (one
// accumulator per dot product, a row of C at a time, blocking tuned for
// native caches) are 2–3× slower there than plain loops that let each load
// serve four to sixteen multiply–adds, and this package uses those loops
// there. Measured under Node.js, which uses V8, the engine Chromium runs
// the app on:
//   - a 1 438×65 matrix–vector product: 225 → 114 µs;
//   - the Gram matrix of 60 rows of 81 entries: 503 → 160 µs;
//   - a 200×200×192 product: 35 → 11 ms;
//   - EP's tiled recompute (GemmAcc, TrsmLeft, SyrkTUpper, AddMulT): GPC+
//     EP at n = 400, 5.88 → 1.79 s.
//
// Natively gonum stays: the same loops made EP 1.2–1.4× slower there (GPC
// at n = 800: 1.45 → 2.07 s). The loop versions are compiled on every
// platform (loops.go), so the native tests check them against gonum and
// against textbook loops.
package fastblas
