// LUPI Lab compute worker. It runs compute.wasm — the models, solvers and
// data readers, built without the UI — off the page's main thread. The page
// (web/pool.js) sends {kind: "init"} first: with the compiled module, or
// (the first worker) with the address of compute.wasm, which this worker
// then fetches and compiles — so the main thread never decodes the module's
// bytes — and sends back as {kind: "module", module} for the pool's later
// workers (or {kind: "module", body: {message}} when it could not). Messages
// that arrive before the Go engine runs are queued for it. The Go side
// (wasm/compute) then owns onmessage and answers with wire messages.
"use strict";
importScripts("wasm_exec.js");

// compile fetches and compiles compute.wasm, streaming when it can.
async function compile(url) {
  if (WebAssembly.compileStreaming) {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (err) {
      // a server without the application/wasm type: compile the bytes
      if (!(err instanceof TypeError)) throw err;
    }
  }
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
  return WebAssembly.compile(await resp.arrayBuffer());
}

self.lupiPending = [];
self.onmessage = async (event) => {
  const m = event.data;
  if (!m || m.kind !== "init") {
    self.lupiPending.push(m);
    return;
  }
  let mod = m.module;
  if (!mod) {
    try {
      mod = await compile(m.url);
    } catch (err) {
      self.postMessage({ v: m.v, id: 0, kind: "module", body: JSON.stringify({ message: String(err) }) });
      return;
    }
    self.postMessage({ v: m.v, id: 0, kind: "module", module: mod });
  }
  try {
    const go = new Go();
    const instance = await WebAssembly.instantiate(mod, go.importObject);
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
