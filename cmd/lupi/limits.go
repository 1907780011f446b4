package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"lupilab/models/model"
	"lupilab/models/procmem"
	"lupilab/models/spec"
)

// defaultMemoryFraction is the share of the memory available to this
// process that a fit may plan to use by default: the estimate of a fit's
// peak is a calibrated model, not a bound (scripts/cost reports its
// errors), and the process holds the data too.
const defaultMemoryFraction = 0.6

// fallbackMemory is the budget when the machine does not say what it has.
const fallbackMemory = 2 << 30

// memoryLimit returns the -max-memory budget in bytes (0: no limit) and
// where it comes from.
func memoryLimit(flagValue string) (float64, string, error) {
	v := strings.TrimSpace(flagValue)
	if v == "" || strings.EqualFold(v, "auto") {
		avail, from := availableMemory()
		if avail <= 0 {
			return fallbackMemory, "the fallback (the machine's memory is unknown)", nil
		}
		return defaultMemoryFraction * avail, fmt.Sprintf("%.0f%% of %s (%s)", 100*defaultMemoryFraction, spec.FormatBytes(avail), from), nil
	}
	b, err := parseSize(v)
	if err != nil {
		return 0, "", usageError{fmt.Sprintf("fit: -max-memory %q: %v", flagValue, err)}
	}
	return b, "-max-memory", nil
}

// parseSize reads a size: bytes, or a number with k, M, G or T (powers of
// 1024; "GB", "GiB" and "g" alike); 0 means no limit.
func parseSize(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "b"), "i")
	mult := 1.0
	if t != "" {
		switch t[len(t)-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:len(t)-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a size (e.g. 4G, 512M, 0 for no limit)")
	}
	return f * mult, nil
}

// availableMemory is the memory this process may still take: the least of
// the kernel's MemAvailable, the cgroup's limit less its usage, and the
// address-space limit (ulimit -v); 0 when none is known.
func availableMemory() (float64, string) {
	best, from := 0.0, ""
	take := func(b float64, what string) {
		if b > 0 && (best == 0 || b < best) {
			best, from = b, what
		}
	}
	if free, ok := procmem.Available(); ok {
		take(free, "MemAvailable")
	}
	readNum := func(p string) float64 {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil {
			return 0
		}
		return f
	}
	if max := readNum("/sys/fs/cgroup/memory.max"); max > 0 {
		take(max-readNum("/sys/fs/cgroup/memory.current"), "the cgroup's memory.max")
	}
	if as := addressSpaceLimit(); as > 0 {
		// the address space counts what is reserved, not only what is used
		vm, _ := procmem.AddressSpace()
		take(as-vm, "the address-space limit (ulimit -v)")
	}
	return best, from
}

// progress prints a fit's progress on stderr, at most every interval (and
// at each new stage).
type progress struct {
	e        *env
	what     string
	interval time.Duration
	mu       sync.Mutex
	last     time.Time
	stage    string
	start    time.Time
	estimate float64
}

func newProgress(e *env, what string, estimate float64) *progress {
	return &progress{e: e, what: what, interval: time.Second, start: time.Now(), estimate: estimate}
}

func (p *progress) report(pr model.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.last) < p.interval && pr.Stage == p.stage {
		return
	}
	p.last, p.stage = now, pr.Stage
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", p.what, spec.FormatSeconds(now.Sub(p.start).Seconds()))
	if pr.Fraction >= 0 {
		fmt.Fprintf(&b, ", %.0f%%", 100*pr.Fraction)
	}
	if p.estimate > 0 {
		fmt.Fprintf(&b, " (estimated %s in all)", spec.FormatSeconds(p.estimate))
	}
	for _, s := range []string{pr.Stage, pr.Message} {
		if s != "" {
			b.WriteString(" — " + s)
		}
	}
	if pr.Iter > 0 {
		fmt.Fprintf(&b, " (iteration %d)", pr.Iter)
	}
	p.e.notef("%s", b.String())
}
