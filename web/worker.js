// LUPI Lab compute worker. It runs compute.wasm — the models, solvers and
// data readers, built without the UI — off the page's main thread. The page
// (web/pool.js) sends {kind: "init"} first: with the compiled module, or
// (the first worker) with the address of compute.wasm, which this worker
// then fetches and compiles — so the main thread never decodes the module's
// bytes — and sends back as {kind: "module", module} for the pool's later
// workers (or {kind: "module", body: {message}} when it could not). While
// the bytes arrive it sends {kind: "loading", body: {loaded, total}} (raw
// bytes; total 0 when the server does not say), so that the page can tell
// how far the compute engine's loading is. Messages that arrive before the
// Go engine runs are queued for it. The Go side (wasm/compute) then owns
// onmessage and answers with wire messages.
"use strict";
importScripts("wasm_exec.js");

// compile fetches and compiles compute.wasm, streaming when it can, and
// reports the bytes received through loading(loaded, total).
async function compile(url, loading) {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
  track(resp.clone(), loading);
  if (WebAssembly.compileStreaming) {
    try {
      return await WebAssembly.compileStreaming(resp);
    } catch (err) {
      // a server without the application/wasm type: compile the bytes
      if (!(err instanceof TypeError)) throw err;
      return WebAssembly.compile(await (await fetch(url)).arrayBuffer());
    }
  }
  return WebAssembly.compile(await resp.arrayBuffer());
}

// track reads a copy of the response's body to count the bytes (the raw
// size: the server gives it beside a compressed body; a compressed body's
// Content-Length would not count what the reader sees), calling loading at
// most once per percent (or per 256 kB when the size is not known).
function track(copy, loading) {
  const h = copy.headers;
  let total = parseInt(h.get("X-Wasm-Content-Length") || "0", 10) || 0;
  if (!total && !h.get("Content-Encoding")) total = parseInt(h.get("Content-Length") || "0", 10) || 0;
  (async () => {
    const reader = copy.body.getReader();
    let loaded = 0;
    let told = -1;
    loading(0, total);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      const step = total > 0 ? Math.floor((loaded * 100) / total) : Math.floor(loaded / 262144);
      if (step !== told) {
        told = step;
        loading(loaded, total);
      }
    }
    loading(loaded, Math.max(total, loaded));
  })().catch(() => {}); // the progress is only shown
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
      mod = await compile(m.url, (loaded, total) =>
        self.postMessage({ v: m.v, id: 0, kind: "loading", body: JSON.stringify({ loaded: loaded, total: total }) }));
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
