// LUPI Lab's pool of compute workers (web/worker.js running compute.wasm).
// The UI (app.wasm, on the main thread) never computes: it submits jobs
// here, and each job runs in one worker. The pool
//   - has its first worker fetch and compile compute.wasm (so the main
//     thread never decodes the module's bytes), which sends the compiled
//     module back; every later worker is handed that module. What the
//     loading has got to — "waiting", "fetching" (bytes loaded of total),
//     "starting" (compiled, the engine starting), "ready" or "failed" — is
//     loading(), and onLoading(cb) calls cb at each change (the page's
//     "Loading the compute engine… N %");
//   - starts workers on demand, up to its size (navigator.hardwareConcurrency,
//     capped at 4, overridable): one more when a job has waited GROW_AFTER_MS
//     for a free worker. Starting a worker costs its own instance of the
//     engine (memory, and CPU that competes with the page on a small
//     device), which a job that a worker would take within that time does not
//     repay — on a first visit, the default fit waits for the data's points;
//   - runs one job per worker at a time, interactive jobs first, a job with
//     an affinity on the worker that holds its model when that worker is
//     still the same, and a job marked alone (the device calibration: a
//     measurement of this device's speed) only when no other job runs or
//     waits, on a worker already started: it never makes the pool grow and
//     never competes with the page's own jobs for a core;
//   - cancels a job by asking its worker, and terminates (and replaces) a
//     worker that has not stopped within 100 ms;
//   - passes a running job a message of the page's (signal: a watched
//     fit's new pace), or holds it until the job starts;
//   - replaces a worker whose engine died and fails its job with the reason.
// Messages follow models/wire: {v, id, kind, body, bin}. Test hooks:
// lupiPool.stats() and window.__lupiPoolLog (the last 200 events).
"use strict";

const lupiPool = (() => {
  const CANCEL_GRACE_MS = 100;
  const GROW_AFTER_MS = 250;
  const MAX_SIZE = 16;
  const OFFLINE_DATA_KEY = "lupilab.offlineData";
  let wasmURL = "";
  let workerURL = "";
  let version = 1;
  let module = null;
  let moduleError = null;
  let compiling = null;
  let size = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));
  const workers = []; // {w, index, gen, job, ready, started}
  const queue = []; // jobs not yet started
  const jobs = new Map(); // id → job
  const readyCallbacks = [];
  const load = { phase: "waiting", loaded: 0, total: 0 };
  const loadCallbacks = new Set();
  let nextID = 1;
  let generation = 0;
  let growTimer = null;
  const counters = { spawned: 0, terminated: 0, died: 0, jobs: 0, cancelled: 0 };
  const log = (window.__lupiPoolLog = []);

  function note(event) {
    log.push([Math.round(performance.now()), event]);
    if (log.length > 200) log.shift();
  }

  // loaded records how far the compute engine's loading is and tells the
  // page.
  function loaded(phase, bytes, total) {
    if (load.phase === "ready" || load.phase === "failed") return;
    load.phase = phase;
    if (bytes !== undefined) {
      load.loaded = bytes;
      load.total = total;
    }
    for (const cb of Array.from(loadCallbacks)) {
      try { cb(); } catch (err) { console.error(err); }
    }
  }

  // start starts the first worker, which fetches and compiles
  // compute.wasm and sends the compiled module back (receive, "module").
  // opts: {wasm, worker, version, size}.
  function start(opts) {
    if (compiling) return;
    wasmURL = new URL(opts.wasm, document.baseURI).href;
    workerURL = opts.worker;
    version = opts.version || 1;
    if (opts.size > 0) size = Math.min(MAX_SIZE, opts.size);
    compiling = true;
    note("compile in worker");
    spawn();
  }

  // compiled takes the module the first worker compiled, or its error.
  function compiled(m) {
    if (module || moduleError) return;
    if (m.module) {
      module = m.module;
      note("compiled");
      loaded("starting");
      pump();
      precache();
      return;
    }
    let why = "unknown error";
    try { why = JSON.parse(m.body).message; } catch (err) { /* keep the default */ }
    moduleError = "could not load the compute engine (" + wasmURL + "): " + why;
    note("compile failed");
    loaded("failed");
    for (const job of Array.from(queue)) finish(job, "error", JSON.stringify({ kind: "internal", message: moduleError }), []);
    queue.length = 0;
  }

  // precache asks the service worker to cache what it left for after the
  // app is live — the compute build, and all sample datasets when the user
  // chose to keep them for offline use (Advanced; local storage
  // lupilab.offlineData) — without competing with the UI's own first load.
  function precache() {
    const later = () => {}; // no service worker yet: the next visit caches them
    post("lupi-precache").catch(later);
    if (localStorage.getItem(OFFLINE_DATA_KEY) === "true") post("lupi-precache-datasets").catch(later);
  }

  // keepDatasets asks the service worker to cache every sample dataset
  // now; it resolves with the number of datasets cached, once they are.
  function keepDatasets() {
    return new Promise((resolve, reject) => {
      if (!("serviceWorker" in navigator)) {
        reject(new Error("this browser has no service worker"));
        return;
      }
      const onMessage = (e) => {
        if (e.data && e.data.kind === "lupi-datasets-kept") {
          navigator.serviceWorker.removeEventListener("message", onMessage);
          resolve(e.data.cached);
        }
      };
      navigator.serviceWorker.addEventListener("message", onMessage);
      post("lupi-precache-datasets").catch((err) => {
        navigator.serviceWorker.removeEventListener("message", onMessage);
        reject(err);
      });
    });
  }

  function post(message) {
    if (!("serviceWorker" in navigator)) return Promise.resolve();
    return navigator.serviceWorker.ready.then((reg) => {
      if (!reg.active) throw new Error("the service worker is not active");
      reg.active.postMessage(message);
    });
  }

  // spawn starts one more worker: the first one before the module is
  // compiled (it compiles it), the others once it is.
  function spawn() {
    if ((!module && workers.length > 0) || workers.length >= size) return null;
    const slot = { index: workers.length, gen: ++generation, job: null, ready: false, started: performance.now() };
    attach(slot);
    workers.push(slot);
    return slot;
  }

  // attach gives a slot a fresh worker.
  function attach(slot) {
    const w = new Worker(workerURL);
    slot.w = w;
    slot.ready = false;
    counters.spawned++;
    note("spawn " + slot.index + "/" + slot.gen);
    w.onmessage = (e) => receive(slot, e.data);
    w.onerror = (e) => {
      e.preventDefault();
      died(slot, "the compute engine failed: " + (e.message || "unknown error"));
    };
    // with the compiled module when there is one, else the address to
    // compile it from
    w.postMessage(module ? { v: version, id: 0, kind: "init", module: module } : { v: version, id: 0, kind: "init", url: wasmURL });
  }

  function replace(slot) {
    slot.w.terminate();
    slot.gen = ++generation;
    slot.job = null;
    attach(slot);
  }

  function died(slot, why) {
    counters.died++;
    note("died " + slot.index + ": " + why);
    const job = slot.job;
    replace(slot);
    if (job) finish(job, "error", JSON.stringify({ kind: "internal", message: why + ". The engine was restarted; try again." }), []);
    pump();
  }

  function receive(slot, m) {
    if (!m) return;
    if (m.kind === "module") {
      compiled(m);
      return;
    }
    if (m.kind === "loading") {
      if (module || moduleError) return;
      let p = {};
      try { p = JSON.parse(m.body); } catch (err) { /* no numbers */ }
      loaded("fetching", p.loaded || 0, p.total || 0);
      return;
    }
    if (m.kind === "hello") {
      slot.ready = true;
      note("ready " + slot.index);
      loaded("ready");
      while (readyCallbacks.length) {
        try { readyCallbacks.shift()(); } catch (err) { console.error(err); }
      }
      pump();
      return;
    }
    if (m.kind === "dead") {
      let why = "the compute engine stopped";
      try { why = JSON.parse(m.body).message; } catch (err) { /* keep the default */ }
      died(slot, why);
      return;
    }
    const job = jobs.get(m.id);
    if (!job || job.slot !== slot) return; // a job already ended (cancelled, timed out)
    const end = m.kind === "result" || m.kind === "error" || m.kind === "cancelled";
    if (end) {
      slot.job = null;
      finish(job, m.kind, m.body, m.bin || []);
      pump();
    } else {
      deliver(job, m.kind, m.body, m.bin || []);
    }
  }

  function deliver(job, kind, body, bin) {
    try {
      job.onMessage(kind, body || "", bin, job.slot ? job.slot.index : -1, job.slot ? job.slot.gen : 0);
    } catch (err) {
      console.error("lupiPool: a job's handler failed", err);
    }
  }

  function finish(job, kind, body, bin) {
    if (job.done) return;
    job.done = true;
    if (job.timer) clearTimeout(job.timer);
    jobs.delete(job.id);
    note("end " + job.id + " " + kind);
    deliver(job, kind, body, bin);
    job.slot = null;
  }

  // pump starts queued jobs on free workers, starting workers as needed.
  function pump() {
    if (!module) return;
    queue.sort((a, b) => b.priority - a.priority || a.id - b.id);
    for (let i = 0; i < queue.length; ) {
      const job = queue[i];
      if (job.alone && (i > 0 || workers.some((s) => s.job))) { i++; continue; }
      let slot = null;
      if (job.affinity && job.affinity.index < workers.length) {
        const s = workers[job.affinity.index];
        if (s.gen === job.affinity.gen) {
          if (s.job || !s.ready) { i++; continue; } // wait for the worker that holds the model
          slot = s;
        }
      }
      if (!slot) slot = workers.find((s) => s.ready && !s.job) || null;
      if (!slot) {
        if (!job.alone && workers.length < size && !workers.some((s) => !s.ready)) {
          const wait = GROW_AFTER_MS - (performance.now() - job.queuedAt);
          if (wait <= 0) spawn();
          else if (!growTimer) growTimer = setTimeout(() => { growTimer = null; pump(); }, wait);
        }
        i++;
        continue;
      }
      queue.splice(i, 1);
      run(slot, job);
    }
  }

  function run(slot, job) {
    slot.job = job;
    job.slot = slot;
    job.startedAt = performance.now();
    note("run " + job.id + " " + job.kind + " on " + slot.index);
    const transfer = job.bin.filter((b) => b instanceof ArrayBuffer);
    slot.w.postMessage({ v: version, id: job.id, kind: job.kind, body: job.body, bin: job.bin }, transfer);
    for (const [kind, body] of job.signals) slot.w.postMessage({ v: version, id: job.id, kind: kind, body: body, bin: [] });
    job.signals = [];
  }

  // signal sends a running job a message (kind, JSON body) that steers it
  // (a watched fit's pace), or keeps it for when the job starts; it returns
  // false when the job has ended.
  function signal(id, kind, body) {
    const job = jobs.get(id);
    if (!job || job.done) return false;
    note("signal " + id + " " + kind);
    if (job.slot) job.slot.w.postMessage({ v: version, id: id, kind: kind, body: body, bin: [] });
    else job.signals.push([kind, body]);
    return true;
  }

  // submit queues a job and returns its id. opts: {priority (higher first),
  // affinity: {index, gen}, alone (start only when the pool is otherwise
  // idle), waited (ms the job already waited for the pool: a batch's job
  // the page held back until the pool had room), onMessage(kind, body, bin,
  // workerIndex, workerGen)}.
  function submit(kind, body, bin, opts) {
    const job = {
      id: nextID++, kind: kind, body: body, bin: bin || [], priority: opts.priority || 0,
      affinity: opts.affinity || null, alone: !!opts.alone, onMessage: opts.onMessage, slot: null, done: false,
      queuedAt: performance.now() - (opts.waited || 0), signals: [],
    };
    counters.jobs++;
    jobs.set(job.id, job);
    note("queue " + job.id + " " + kind);
    if (moduleError) {
      finish(job, "error", JSON.stringify({ kind: "internal", message: moduleError }), []);
      return job.id;
    }
    queue.push(job);
    pump();
    return job.id;
  }

  // cancel stops a job: a queued one at once; a running one by asking its
  // worker, which is terminated and replaced if it has not stopped within
  // CANCEL_GRACE_MS.
  function cancel(id) {
    const job = jobs.get(id);
    if (!job || job.done) return;
    counters.cancelled++;
    const q = queue.indexOf(job);
    if (q >= 0) {
      queue.splice(q, 1);
      finish(job, "cancelled", "", []);
      return;
    }
    const slot = job.slot;
    if (!slot) return;
    slot.w.postMessage({ v: version, id: id, kind: "cancel", body: "", bin: [] });
    job.timer = setTimeout(() => {
      if (job.done || job.slot !== slot) return;
      counters.terminated++;
      note("terminate " + slot.index + " (job " + id + " did not stop)");
      replace(slot);
      finish(job, "cancelled", "", []);
      pump();
    }, CANCEL_GRACE_MS);
  }

  function setSize(n) {
    size = Math.max(1, Math.min(MAX_SIZE, n | 0));
    while (workers.length > size) {
      const slot = workers[workers.length - 1];
      if (slot.job) break; // shrink later
      slot.w.terminate();
      workers.pop();
    }
    pump();
  }

  return {
    start: start,
    submit: submit,
    cancel: cancel,
    signal: signal,
    setSize: setSize,
    keepDatasets: keepDatasets,
    size: () => size,
    ready: () => workers.some((s) => s.ready),
    failed: () => moduleError || "",
    loading: () => Object.assign({}, load),
    // onLoading calls cb at each change of loading() until the engine is
    // ready (or failed); it returns a function that stops the calls.
    onLoading: (cb) => {
      loadCallbacks.add(cb);
      return () => loadCallbacks.delete(cb);
    },
    onReady: (cb) => {
      if (workers.some((s) => s.ready)) cb();
      else readyCallbacks.push(cb);
    },
    stats: () => ({
      size: size,
      workers: workers.length,
      ready: workers.filter((s) => s.ready).length,
      busy: workers.filter((s) => s.job).length,
      queued: queue.length,
      running: workers.filter((s) => s.job).map((s) => s.job.kind),
      spawned: counters.spawned,
      terminated: counters.terminated,
      died: counters.died,
      jobs: counters.jobs,
      cancelled: counters.cancelled,
    }),
  };
})();
window.lupiPool = lupiPool;
