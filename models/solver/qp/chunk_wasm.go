package qp

// cholChunk is the column-chunk width of the block-row update in cholUpper:
// narrow under wasm (single thread, ~10× slower than native) so that ticks,
// and with them Progress calls, come every few milliseconds.
const cholChunk = 64
