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
