// LUPI Lab compute worker. It runs compute.wasm — the models, solvers and
// data readers, built without the UI — off the page's main thread. The page
// (web/pool.js) sends {kind: "init", module} with the compiled module first;
// messages that arrive before the Go engine runs are queued for it. The Go
// side (wasm/compute) then owns onmessage and answers with wire messages.
"use strict";
importScripts("wasm_exec.js");

self.lupiPending = [];
self.onmessage = async (event) => {
  const m = event.data;
  if (!m || m.kind !== "init") {
    self.lupiPending.push(m);
    return;
  }
  try {
    const go = new Go();
    const instance = await WebAssembly.instantiate(m.module, go.importObject);
    // go.run resolves when the Go program exits: the engine never returns,
    // so this happens only after a fatal error (e.g. out of memory).
    go.run(instance).then(
      () => self.postMessage({ v: m.v, id: 0, kind: "dead", body: JSON.stringify({ message: "the compute engine stopped" }) }),
      (err) => self.postMessage({ v: m.v, id: 0, kind: "dead", body: JSON.stringify({ message: "the compute engine stopped: " + err }) }),
    );
  } catch (err) {
    self.postMessage({ v: m.v, id: 0, kind: "dead", body: JSON.stringify({ message: "could not start the compute engine: " + err }) });
  }
};
