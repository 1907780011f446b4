// node-bench.js — the bench-web comparison under Node.js (V8, as Chromium),
// reporting CPU time (process.cpuUsage) as well as wall time, which is the
// robust measure on a loaded machine. Usage (scripts/bench-web.sh NODE=1 runs it):
//   node node-bench.js DIR [sizes] [repeats]
// DIR holds wasm_exec.js and lupi.wasm.
'use strict';
const path = require('path');
const fs = require('fs');
const dir = process.argv[2];
const sizes = (process.argv[3] || '1000,2000').split(',').map(Number);
const reps = Number(process.argv[4] || 2);
require(path.resolve(dir, 'wasm_exec.js'));

const { problem } = require('./problem.js');

function timed(f) {
  const c0 = process.cpuUsage(), t0 = performance.now();
  const v = f();
  const c = process.cpuUsage(c0);
  return { v, wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}
(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(path.join(dir, 'lupi.wasm')), go.importObject);
  go.run(instance);
  while (!globalThis.lupiReady) await new Promise((r) => setTimeout(r, 5));
  const SVM = await require('libsvm-js');
  const C = 1, gamma = 0.1, eps = 0.001, cache = 100;
  for (let k = 0; k < 8; k++) { // warm-up: let the engine tier up both wasm modules before timing
    const w = problem(600, 7 + k);
    lupiTrain(new Uint8Array(w.X.buffer), new Uint8Array(w.y.buffer), 600, w.d, C, gamma, eps, cache);
    const s = new SVM({ type: SVM.SVM_TYPES.C_SVC, kernel: SVM.KERNEL_TYPES.RBF, gamma, cost: C, quiet: true });
    s.train(w.rows, w.labels); s.free();
  }
  console.log('    n | ours_wall  ours_cpu | js_wall  js_cpu | wall×  cpu× | nSV ours/js');
  for (const n of sizes) {
    const p = problem(n, 42);
    const xb = new Uint8Array(p.X.buffer), yb = new Uint8Array(p.y.buffer);
    const best = { ow: Infinity, oc: Infinity, jw: Infinity, jc: Infinity };
    let ours, nsv;
    for (let k = 0; k < reps; k++) {
      const a = timed(() => lupiTrain(xb, yb, n, p.d, C, gamma, eps, cache));
      ours = a.v;
      if (ours.error) throw new Error(ours.error);
      best.ow = Math.min(best.ow, a.wall); best.oc = Math.min(best.oc, a.cpu);
      const svm = new SVM({ type: SVM.SVM_TYPES.C_SVC, kernel: SVM.KERNEL_TYPES.RBF, gamma, cost: C,
        tolerance: eps, cacheSize: cache, shrinking: true, quiet: true });
      const b = timed(() => svm.train(p.rows, p.labels));
      best.jw = Math.min(best.jw, b.wall); best.jc = Math.min(best.jc, b.cpu);
      nsv = svm.getSVIndices().length;
      svm.free();
    }
    console.log(`${String(n).padStart(5)} | ${best.ow.toFixed(0).padStart(9)} ${best.oc.toFixed(0).padStart(9)} | ${best.jw.toFixed(0).padStart(7)} ${best.jc.toFixed(0).padStart(7)} | ${(best.ow / best.jw).toFixed(2).padStart(5)} ${(best.oc / best.jc).toFixed(2).padStart(5)} | ${ours.nsv}/${nsv}`);
  }
  process.exit(0);
})().catch((e) => { console.error('node-bench:', e); process.exit(1); });
