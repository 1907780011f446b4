package main

import (
	"bytes"
	"errors"
)

// go-app's app.js fetches and compiles app.wasm on the page's main thread
// (instantiateStreaming over a JavaScript stream that counts the bytes), so
// decoding the UI build's 7 MB is main-thread work before the app can start.
// patchAppJS hands that to a worker (web/compile.js), which compiles the
// module and posts it back; the page only instantiates it. When the worker
// cannot run, lupiInstantiate falls back to go-app's own way. The patch
// matches go-app v9.8.0's text exactly and fails loudly when it changes.

var (
	appJSLoadStart = []byte("const wasm = await instantiateStreaming(\n      fetchWithProgress(")
	appJSLoadEnd   = []byte(", showProgress),\n      go.importObject\n    );")
)

// lupiInstantiate is appended to app.js (function declarations are hoisted,
// so goappInitWebAssembly, called near the top, can use it).
const lupiInstantiate = `

// -----------------------------------------------------------------------------
// LUPI Lab: compile app.wasm in a worker (web/compile.js, next to app.wasm),
// which then warms it up (web/warm.js); the page waits for the first part of
// that, up to 5 s
// -----------------------------------------------------------------------------
async function lupiInstantiate(url, showProgress, importObject, instantiateStreaming) {
  const wasmURL = new URL(url, document.baseURI).href;
  let module = null;
  try {
    module = await new Promise((resolve, reject) => {
      const w = new Worker(new URL("compile.js", wasmURL).href);
      // The worker sends the compiled module, then warms it up and says
      // so; the page waits for that (so that it does not compile the same
      // functions at the same time), but not for more than limit ms.
      const limit = window.__lupiWarmLimitMs || 5000;
      let compiled = null;
      let timer = 0;
      // After the warm-up has rendered the page, the page starts; once its
      // start is over ({proceed}), the worker replays a recorded fit
      // ({replayed} when it is done). It is stopped 10 s after that (at
      // most 20 s after the page started):
      // its teardown (the warm-up's wasm memory) then does not compete for a
      // core with the page's own start (Lighthouse TBT about 0.8× in
      // alternating pairs).
      let stop = 0;
      const stopIn = (ms) => {
        clearTimeout(stop);
        stop = setTimeout(() => w.terminate(), ms);
      };
      const done = (warmed, finished) => {
        clearTimeout(timer);
        if (finished) {
          stopIn(20000);
          // the page's start: instantiating the module, then a few tasks
          // of the Go runtime and go-app; the worker goes on once the main
          // thread is idle
          const go = () => w.postMessage({ proceed: true });
          if (window.requestIdleCallback) requestIdleCallback(go, { timeout: 2000 });
          else setTimeout(go, 500);
        } else w.terminate();
        window.__lupiWarm = warmed; // what the warm-up did (web/warm.js)
        resolve(compiled);
      };
      w.onmessage = (e) => {
        const m = e.data || {};
        if (m.progress !== undefined) {
          if (!compiled) showProgress(m.progress); // (a late count after the module)
        } else if (m.module) {
          compiled = m.module;
          // the bytes are in (100 %); the interface now starts
          const label = document.getElementById("app-wasm-loader-label");
          if (label) label.innerText = "Starting the interface…";
          timer = setTimeout(() => done({ stopped: "the warm-up took more than " + limit + " ms: started without it" }), limit);
        } else if (m.replayed !== undefined) {
          window.__lupiWarm = Object.assign({}, window.__lupiWarm, m.replayed);
          stopIn(10000);
        } else if (compiled) {
          done(m.warmed, true);
        } else {
          w.terminate();
          reject(new Error(m.error || "no module"));
        }
      };
      w.onerror = (e) => {
        e.preventDefault();
        if (compiled) {
          done({ stopped: "the loader worker failed: " + e.message });
          return;
        }
        w.terminate();
        reject(new Error(e.message || "the loader worker failed"));
      };
      let storage = [];
      try {
        storage = Object.entries(localStorage);
      } catch (err) {
        // no storage: warm up with none
      }
      w.postMessage({ url: wasmURL, warm: { href: location.href, env: goappEnv, storage: storage } });
    });
  } catch (err) {
    console.warn("LUPI Lab: compiling app.wasm in a worker failed (" + err + "); compiling it here");
    return instantiateStreaming(fetchWithProgress(url, showProgress), importObject);
  }
  return { module: module, instance: await WebAssembly.instantiate(module, importObject) };
}
`

// patchAppJS rewrites go-app's app.js to load app.wasm through
// lupiInstantiate.
func patchAppJS(js []byte) ([]byte, error) {
	i := bytes.Index(js, appJSLoadStart)
	if i < 0 {
		return nil, errors.New("app.js: go-app's wasm loading code was not found (a go-app upgrade? see appjs.go)")
	}
	j := bytes.Index(js[i:], appJSLoadEnd)
	if j < 0 {
		return nil, errors.New("app.js: the end of go-app's wasm loading code was not found (see appjs.go)")
	}
	url := js[i+len(appJSLoadStart) : i+j]
	var out bytes.Buffer
	out.Write(js[:i])
	out.WriteString("const wasm = await lupiInstantiate(")
	out.Write(url)
	out.WriteString(", showProgress, go.importObject, instantiateStreaming);")
	out.Write(js[i+j+len(appJSLoadEnd):])
	out.WriteString(lupiInstantiate)
	return out.Bytes(), nil
}
