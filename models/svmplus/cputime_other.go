//go:build !unix

package svmplus

// cpuSeconds is unavailable here (e.g. in the browser): callers fall back to
// wall-clock time.
func cpuSeconds() (float64, bool) { return 0, false }
