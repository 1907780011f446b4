// problem.js — the benchmark problem both bench-web pages solve: the page
// in Chromium (index.html) and the Node.js run (node-bench.js).
// Same noisy 10-D problem as scripts/bench-svm.sh (not the same numbers: a
// seeded JS generator), identical arrays for both solvers.
function rng(seed) { // mulberry32
  return function () {
    seed |= 0; seed = seed + 0x6D2B79F5 | 0;
    let t = Math.imul(seed ^ seed >>> 15, 1 | seed);
    t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t;
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  };
}
function normal(r) { let u = 0; while (u === 0) u = r(); return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r()); }
function problem(n, seed) {
  const r = rng(seed), d = 10, X = new Float64Array(n * d), y = new Float64Array(n), rows = [], labels = [];
  for (let i = 0; i < n; i++) {
    const x = [];
    for (let j = 0; j < d; j++) { x.push(normal(r)); X[i * d + j] = x[j]; }
    const f = x[0] + x[1] * x[2] + Math.sin(2 * x[3]) + 0.5 * x[4] * x[4] - 0.5 + 0.8 * normal(r);
    y[i] = f > 0 ? 1 : -1; rows.push(x); labels.push(y[i]);
  }
  return { n, d, X, y, rows, labels };
}
if (typeof module === 'object') module.exports = { rng, normal, problem };
