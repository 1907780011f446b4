// LUPI Lab's page boot glue, loaded (deferred) after go-app's app.js and
// before app.wasm runs.
//
// go-app reports a newly installed version through goappOnUpdate, which
// app.wasm replaces with its handler only once it has started. On a slow or
// busy machine the new service worker can finish installing first, and the
// notice was lost: record it here, and the Shell reads
// window.lupiUpdatePending when it mounts.
"use strict";

window.lupiUpdatePending = false;
if (typeof goappOnUpdate !== "undefined") {
  // eslint-disable-next-line no-global-assign
  goappOnUpdate = function () {
    window.lupiUpdatePending = true;
  };
}

// go-app tells of a new version only if its service worker's state is still
// "installed" when go-app's statechange handler runs; ours skips waiting, so
// on a busy machine the state has often moved on ("activating") by then and
// the notice was lost. A page that was controlled when it loaded sees the
// new version take over (clients.claim when it activates) as a
// controllerchange: tell the app then too (either handler above).
if ("serviceWorker" in navigator && navigator.serviceWorker.controller) {
  navigator.serviceWorker.addEventListener("controllerchange", () => goappOnUpdate());
}

// lupiReloadIntoNewVersion is the update notice's "Reload": it waits (up to
// 5 s) until a new service worker still installing or waiting has become
// active, so that the reloaded page comes from the new version — a reload
// before that is served by the old worker a last time, and the notice would
// only come back.
window.lupiReloadIntoNewVersion = async function () {
  try {
    const reg = "serviceWorker" in navigator ? await navigator.serviceWorker.getRegistration() : null;
    const sw = reg && (reg.installing || reg.waiting);
    if (sw) {
      await new Promise((resolve) => {
        const check = () => {
          if (sw.state === "activated" || sw.state === "redundant") resolve();
        };
        sw.addEventListener("statechange", check);
        check();
        setTimeout(resolve, 5000);
      });
    }
  } catch (err) {
    // reload anyway
  }
  location.reload();
};

// lupiExpose defines window[name] as a getter that parses the JSON text
// get() returns when it is read: the app's test hooks (window.__lupiResult)
// cost nothing until a test reads them.
window.lupiExpose = function (name, get) {
  Object.defineProperty(window, name, { configurable: true, get: () => JSON.parse(get()) });
};
