// LUPI Lab: warming up the UI build (app.wasm) in the loader worker.
//
// V8 compiles a WebAssembly function the first time it is called, on the
// thread that calls it, and keeps the code with the module: a module
// compiled in a worker and posted to the page shares that code. The first
// run of the UI build calls some two thousand functions (the Go runtime, the
// packages' initialisers, go-app's first render of the page), and compiling
// them on the page's main thread made its start one long task of 0.4–0.6 s.
// lupiWarm runs the UI build once here first, against a small stand-in
// document (lupiStandInDOM) at the page's address, so that the page finds
// those functions compiled; a stand-in pool (lupiStandInPool) replays a
// recorded first fit, so that the code that shows a fit's result is compiled
// too. Nothing it does leaves the worker: the stand-in has no network, no
// storage the page sees and no compute; whatever the run cannot do ends it
// (a Go panic), which only means fewer functions warmed.
"use strict";

// lupiDefine sets a global of the stand-in page (a worker's own property
// that cannot be replaced is kept).
function lupiDefine(k, v) {
  try {
    Object.defineProperty(globalThis, k, { value: v, writable: true, configurable: true });
  } catch (err) {
    // keep it
  }
}

// lupiStandInDOM installs on globalThis the parts of a window that go-app
// and the UI use while starting: a document of plain element objects, the
// page's location, history, storage copies, and inert timers and observers.
function lupiStandInDOM(href, env, storage) {
  const g = globalThis;
  class Node {
    constructor(type, name) {
      this.nodeType = type;
      this.nodeName = name;
      this.tagName = name;
      this.childNodes = [];
      this.parentNode = null;
      this.attributes = new Map();
      this.listeners = 0;
      this.style = new Style();
      this.classList = new ClassList(this);
      this.dataset = {};
      this.nodeValue = "";
      this.textContent = "";
      this.innerHTML = "";
      this.innerText = "";
      this.value = "";
      this.checked = false;
      this.offsetWidth = 800;
      this.offsetHeight = 600;
      this.clientWidth = 800;
      this.clientHeight = 600;
      this.width = 800;
      this.height = 600;
      this.scrollTop = 0;
      this.scrollLeft = 0;
    }
    get parentElement() {
      return this.parentNode;
    }
    get children() {
      return this.childNodes.filter((c) => c.nodeType === 1);
    }
    get firstChild() {
      return this.childNodes[0] || null;
    }
    get lastChild() {
      return this.childNodes[this.childNodes.length - 1] || null;
    }
    get firstElementChild() {
      return this.children[0] || null;
    }
    get nextSibling() {
      if (!this.parentNode) return null;
      const s = this.parentNode.childNodes;
      return s[s.indexOf(this) + 1] || null;
    }
    get isConnected() {
      return true;
    }
    appendChild(c) {
      if (c.parentNode) c.parentNode.removeChild(c);
      c.parentNode = this;
      this.childNodes.push(c);
      return c;
    }
    insertBefore(c, ref) {
      if (!ref) return this.appendChild(c);
      if (c.parentNode) c.parentNode.removeChild(c);
      c.parentNode = this;
      this.childNodes.splice(Math.max(0, this.childNodes.indexOf(ref)), 0, c);
      return c;
    }
    removeChild(c) {
      const i = this.childNodes.indexOf(c);
      if (i >= 0) this.childNodes.splice(i, 1);
      c.parentNode = null;
      return c;
    }
    replaceChild(n, old) {
      const i = this.childNodes.indexOf(old);
      if (n.parentNode) n.parentNode.removeChild(n);
      n.parentNode = this;
      if (i >= 0) this.childNodes[i] = n;
      else this.childNodes.push(n);
      old.parentNode = null;
      return old;
    }
    remove() {
      if (this.parentNode) this.parentNode.removeChild(this);
    }
    replaceChildren(...cs) {
      this.childNodes = [];
      for (const c of cs) this.appendChild(c);
    }
    setAttribute(k, v) {
      this.attributes.set(k, String(v));
      if (k === "id") this.id = String(v);
    }
    getAttribute(k) {
      return this.attributes.has(k) ? this.attributes.get(k) : null;
    }
    hasAttribute(k) {
      return this.attributes.has(k);
    }
    removeAttribute(k) {
      this.attributes.delete(k);
    }
    toggleAttribute(k) {
      if (this.attributes.has(k)) this.attributes.delete(k);
      else this.attributes.set(k, "");
    }
    addEventListener() {
      this.listeners++;
    }
    removeEventListener() {
      this.listeners--;
    }
    dispatchEvent() {
      return true;
    }
    contains(n) {
      for (; n; n = n.parentNode) if (n === this) return true;
      return false;
    }
    querySelector() {
      return null;
    }
    querySelectorAll() {
      return [];
    }
    getElementsByTagName() {
      return [];
    }
    getBoundingClientRect() {
      return { x: 0, y: 0, left: 0, top: 0, right: 800, bottom: 600, width: 800, height: 600 };
    }
    getClientRects() {
      return [];
    }
    focus() {}
    blur() {}
    click() {}
    scrollIntoView() {}
    scrollTo() {}
    select() {}
    setPointerCapture() {}
    releasePointerCapture() {}
    getContext(kind) {
      return kind === "2d" ? new Context2D() : null;
    }
    cloneNode() {
      return new Node(this.nodeType, this.nodeName);
    }
  }
  // A canvas's 2-D context that draws nothing.
  class Context2D {
    createImageData(w, h) {
      return { width: w, height: h, data: new Uint8ClampedArray(4 * w * h) };
    }
    measureText(t) {
      return { width: 7 * String(t).length };
    }
  }
  for (const m of ["setTransform", "clearRect", "fillRect", "strokeRect", "beginPath", "closePath", "moveTo", "lineTo",
    "arc", "rect", "fill", "stroke", "clip", "save", "restore", "translate", "rotate", "scale", "fillText", "strokeText",
    "putImageData", "drawImage", "setLineDash"]) {
    Context2D.prototype[m] = function () {};
  }

  class Style {
    setProperty(k, v) {
      this[k] = v;
    }
    removeProperty(k) {
      delete this[k];
    }
    getPropertyValue(k) {
      return this[k] || "";
    }
  }
  class ClassList {
    constructor(node) {
      this.node = node;
    }
    add() {}
    remove() {}
    toggle() {
      return false;
    }
    contains() {
      return false;
    }
  }
  const element = (name) => new Node(1, String(name).toUpperCase());
  const html = element("html");
  const head = element("head");
  const body = element("body");
  html.appendChild(head);
  html.appendChild(body);
  body.appendChild(element("div")); // go-app's root
  const document = new Node(9, "#document");
  Object.assign(document, {
    documentElement: html,
    head,
    body,
    title: "",
    referrer: "",
    cookie: "",
    visibilityState: "visible",
    hidden: false,
    readyState: "complete",
    baseURI: href,
    createElement: element,
    createElementNS: (ns, name) => element(name),
    createTextNode: (text) => {
      const t = new Node(3, "#text");
      t.nodeValue = String(text);
      return t;
    },
    createDocumentFragment: () => new Node(11, "#document-fragment"),
    getElementById: (id) => find(html, (n) => n.id === id),
  });
  function find(n, pred) {
    if (pred(n)) return n;
    for (const c of n.childNodes) {
      const f = find(c, pred);
      if (f) return f;
    }
    return null;
  }
  class Storage {
    constructor(entries) {
      this.m = new Map(entries || []);
    }
    get length() {
      return this.m.size;
    }
    key(i) {
      return [...this.m.keys()][i] ?? null;
    }
    getItem(k) {
      return this.m.has(k) ? this.m.get(k) : null;
    }
    setItem(k, v) {
      this.m.set(k, String(v));
    }
    removeItem(k) {
      this.m.delete(k);
    }
    clear() {
      this.m.clear();
    }
  }
  const url = new URL(href);
  const location = {
    href: url.href,
    origin: url.origin,
    protocol: url.protocol,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
    assign() {},
    replace() {},
    reload() {},
    toString() {
      return url.href;
    },
  };
  const inert = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  const define = lupiDefine;
  define("window", g);
  if (typeof g.addEventListener !== "function") {
    define("addEventListener", () => {});
    define("removeEventListener", () => {});
  }
  define("document", document);
  define("location", location);
  define("history", { length: 1, state: null, pushState() {}, replaceState() {}, back() {}, forward() {}, go() {} });
  define("localStorage", new Storage(storage));
  define("sessionStorage", new Storage());
  define("innerWidth", 1280);
  define("innerHeight", 900);
  define("devicePixelRatio", 1);
  define("scrollX", 0);
  define("scrollY", 0);
  define("pageXOffset", 0);
  define("pageYOffset", 0);
  define("scrollTo", () => {});
  define("alert", () => {});
  define("confirm", () => false);
  define("getComputedStyle", () => new Style());
  define("matchMedia", () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }));
  define("ResizeObserver", inert);
  define("IntersectionObserver", inert);
  define("MutationObserver", inert);
  define("requestAnimationFrame", () => 0); // never called back: no drawing
  define("cancelAnimationFrame", () => {});
  define("requestIdleCallback", () => 0);
  define("cancelIdleCallback", () => {});
  // Nothing reaches out of the worker: no network, no channels to other
  // pages, no messages to the page (compile.js keeps its own postMessage).
  define("fetch", () => new Promise(() => {})); // never settles
  for (const k of ["XMLHttpRequest", "WebSocket", "EventSource", "BroadcastChannel", "Notification", "indexedDB", "caches"]) {
    define(k, undefined);
  }
  define("postMessage", () => {});
  define("lupiStandIn", true); // wasm/ui offers lupiCollect (its garbage collector) here
  define("goappGetenv", (k) => (env && k in env ? env[k] : ""));
  define("goappIsAppInstalled", () => false);
  define("goappIsAppInstallable", () => false);
  define("goappNav", () => {});
  define("goappOnUpdate", () => {});
  define("goappOnAppInstallChange", () => {});
}

// lupiStandInPool installs a stand-in compute pool (web/pool.js's API) that
// answers the jobs recorded in recording — what the compute engine answers
// to a first visit's requests (scripts/warmfit) — by replaying their
// messages, one task each, and never answers the others; and the canvas
// helpers of web/draw.js, drawing nothing. The UI build then decodes, lays
// out and paints a fit's result here, as it will on the page. It returns
// what the replay has done so far, and release(), which makes the pool
// ready (the UI then submits its first jobs).
function lupiStandInPool(recording) {
  const jobs = (recording && recording.jobs) || {};
  // The pool is "ready" only once release() is called: the UI submits its
  // first jobs then, not during the page's first render.
  let held = true;
  const waiting = [];
  const state = {
    recorded: Object.keys(jobs).length, submitted: 0, replayed: 0, pending: 0, later: 0,
    release() {
      held = false;
      for (const cb of waiting.splice(0)) setTimeout(cb, 0);
    },
  };
  let nextID = 1;
  const buffer = (b64) => {
    const s = atob(b64);
    const u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return u.buffer;
  };
  const replay = (msgs, onMessage) => {
    state.pending++;
    let i = 0;
    const next = () => {
      const m = msgs[i++];
      try {
        onMessage(m.kind, m.body, (m.bin || []).map(buffer), 0, 1);
      } finally {
        if (i < msgs.length) setTimeout(next, 0);
        else {
          state.pending--;
          state.replayed++;
        }
      }
    };
    setTimeout(next, 0);
  };
  const define = lupiDefine;
  define("lupiPool", {
    start() {},
    submit(kind, body, bin, opts) {
      state.submitted++;
      if (jobs[kind] && jobs[kind].length && opts && opts.onMessage) {
        replay(jobs[kind], opts.onMessage);
        delete jobs[kind]; // once: the recorded job is the page's first of its kind
      }
      return nextID++;
    },
    cancel() {},
    setSize() {},
    keepDatasets: () => Promise.reject(new Error("not here")),
    size: () => 2,
    ready: () => !held,
    failed: () => "",
    onReady: (cb) => (held ? waiting.push(cb) : setTimeout(cb, 0)),
    stats: () => ({ size: 2, workers: 0, ready: 0, busy: 0, queued: 0, running: [] }),
  });
  const noop = () => {};
  define("lupiDraw", {
    later(fn) {
      state.later++;
      setTimeout(() => {
        state.later--;
        fn();
      }, 0);
    },
    marks: noop,
    crosses: noop,
    path: noop,
    warmText: noop,
  });
  return state;
}

// lupiWarm instantiates module here and runs it in the stand-in document
// at the page's address until it has rendered the page, then calls
// started(report): the page can start from then on, since what follows —
// the jobs the stand-in pool replays, which the UI submits as soon as its
// pool is ready, and a garbage collection — runs code the page's start does
// not call. That part begins when the promise proceed settles (the page's
// start is over). It resolves with the final report once those are done
// (or the run stopped, or 3 s passed).
async function lupiWarm(module, execURL, href, env, storage, recording, started, proceed) {
  const t0 = performance.now();
  let stopped = "";
  let out = "";
  let pool = null;
  let collected = false; // the UI build's garbage collector was run
  // What the run did: how many elements it rendered, which figures it drew,
  // and, if it stopped, why (the end of what it printed); final once the
  // whole warm-up is over.
  const report = (final) => {
    let elements = 0;
    const count = (n) => {
      if (n.nodeType === 1) elements++;
      (n.childNodes || []).forEach(count);
    };
    if (typeof document !== "undefined" && document.body) count(document.body);
    return {
      ms: Math.round(performance.now() - t0), elements, stopped, out: stopped ? out.slice(-1500) : "",
      jobs: pool ? pool.submitted : 0, replayed: pool ? pool.replayed : 0, collected,
      figures: typeof __lupiFigures === "undefined" ? [] : Object.keys(__lupiFigures), final,
    };
  };
  try {
    if (typeof Go === "undefined") importScripts(execURL);
    lupiStandInDOM(href, env, storage);
    pool = lupiStandInPool(recording);
    // What the run prints (a panic's trace when it stops) stays here.
    const dec = new TextDecoder();
    globalThis.fs.writeSync = (fd, buf) => {
      out = (out + dec.decode(buf)).slice(-4000);
      return buf.length;
    };
    const go = new Go();
    go.exit = (code) => {
      stopped = "exit " + code;
    };
    const inst = await WebAssembly.instantiate(module, go.importObject);
    const run = go.run(inst);
    // main sleeps once before starting go-app, and go-app's first render
    // ends in its event loop: give both a moment (timers run here).
    await Promise.race([run, new Promise((r) => setTimeout(r, 50))]);
    if (started) started(report(false));
    // The replay waits for the page's start to be over (proceed), so that
    // the two do not compete for a core, but not for more than 2 s.
    await Promise.race([proceed, new Promise((r) => setTimeout(r, 2000))]);
    pool.release();
    // Then the replayed jobs and the paints they caused: until every
    // recorded job was replayed and drawn — the page redraws its views one
    // a frame (lupiRedrawing while some wait) and paints each figure in a
    // task of its own (later) — for at most 3 s (a page that submits none,
    // /learn, waits that long, idle).
    const until = performance.now() + 3000;
    while (!stopped && performance.now() < until && (pool.replayed < pool.recorded || pool.pending > 0 || pool.later > 0 || globalThis.lupiRedrawing)) {
      await Promise.race([run, new Promise((r) => setTimeout(r, 10))]);
    }
    // A page that shows fits collects garbage soon; this short run would
    // not have.
    if (!stopped && typeof lupiCollect === "function") {
      lupiCollect();
      collected = true;
    }
  } catch (err) {
    stopped = String(err);
  }
  return report(true);
}
