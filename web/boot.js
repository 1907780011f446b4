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
