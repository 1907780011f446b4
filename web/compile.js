// LUPI Lab's loader worker: it fetches and compiles app.wasm (the UI build)
// so that the page's main thread does not decode its bytes, runs it once in
// a stand-in document, with a recorded first fit (warm-fit.json), so that V8
// compiles the functions its start and a fit's result call (web/warm.js),
// and sends the compiled module back. app.js (go-app's
// loader, with lupiInstantiate added by the server) starts it with {url,
// warm: {href, env, storage}} and receives {progress} (0–100) while the
// bytes arrive, then {module}, {warmed} once the warm-up has rendered the
// page and, after the page has sent {proceed} (its own start is over),
// {replayed} once it has replayed the recorded fit; or {error}. The fetched
// response itself goes to compileStreaming (a copy is read for the
// progress), so the browser can keep the compiled code for the next visit.
"use strict";

// The warm-up replaces the worker's globals with a stand-in page's
// (web/warm.js); this keeps the real way back to the page.
const post = self.postMessage.bind(self);

// The page says {proceed} once its own start is over: the rest of the
// warm-up waits for that.
let proceed;
const proceeding = new Promise((r) => (proceed = r));

self.onmessage = async (event) => {
  if (event.data && event.data.proceed) {
    proceed();
    return;
  }
  const url = event.data && event.data.url;
  try {
    // The recorded first fit the warm-up replays (scripts/warmfit); without
    // it the warm-up replays nothing.
    const recording = event.data.warm
      ? fetch(new URL("warm-fit.json", url).href).then((r) => (r.ok ? r.json() : null)).catch(() => null)
      : null;
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(url + ": " + resp.status + " " + resp.statusText);
    // The raw size (the server sends it beside a compressed body).
    const total = parseInt(resp.headers.get("X-Wasm-Content-Length") || resp.headers.get("Content-Length") || "0", 10);
    const copy = resp.clone();
    (async () => {
      const reader = copy.body.getReader();
      let loaded = 0;
      let shown = -1;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        loaded += value.byteLength;
        const p = total > 0 ? Math.min(100, Math.floor((loaded * 100) / total)) : 0;
        if (p !== shown) {
          shown = p;
          post({ progress: p });
        }
      }
    })().catch(() => {}); // the progress is only shown
    let module;
    try {
      module = await WebAssembly.compileStreaming(resp);
    } catch (err) {
      // a server without the application/wasm type: compile the bytes
      if (!(err instanceof TypeError)) throw err;
      module = await WebAssembly.compile(await (await fetch(url)).arrayBuffer());
    }
    post({ module: module });
    if (!event.data.warm) {
      post({ warmed: null });
      return;
    }
    // The page starts once the warm-up has rendered the page ({warmed});
    // the rest of the warm-up (the replayed fit) runs once the page's start
    // is over ({proceed}), and {replayed} says what it did.
    let told = false;
    const tell = (report) => {
      if (!told) {
        told = true;
        post({ warmed: report });
      }
    };
    const w = event.data.warm;
    try {
      importScripts(new URL("warm.js", url).href);
      const report = await lupiWarm(module, new URL("wasm_exec.js", url).href, w.href, w.env, w.storage, await recording, tell, proceeding);
      tell(report); // it stopped before it rendered the page
      post({ replayed: report });
    } catch (err) {
      tell({ stopped: String(err) }); // the page starts all the same
    }
  } catch (err) {
    post({ error: String(err) });
  }
};
