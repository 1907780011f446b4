//go:build !wasm

package qp

// cholChunk is the column-chunk width of the block-row update in cholUpper;
// natively the whole block row is one call (best for gonum's parallel Dgemm).
const cholChunk = 1 << 30
