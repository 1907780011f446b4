// Settings shared by LUPI Lab's Lighthouse configurations (used by
// BenchmarkWebLighthouse in browsertest/benchweb_test.go).
//
// Lighthouse ends a page load once the network and the main thread have
// been quiet for about a second. LUPI Lab fetches, compiles and warms up its
// UI build in a worker, and the first fit runs in another: the page's main
// thread and its own network can both be quiet for a second while that
// happens, and Lighthouse then stops before the app has even started (a run
// with a perfect score that measured the pre-rendered HTML only). Waiting
// for five quiet seconds makes every run include the app's start and its
// first fit.
export const wait = {
  pauseAfterFcpMs: 5000,
  pauseAfterLoadMs: 5000,
  networkQuietThresholdMs: 5000,
  cpuQuietThresholdMs: 5000,
  maxWaitForFcp: 30000,
  maxWaitForLoad: 60000,
};
