package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Under an address-space limit (ulimit -v) the default budget is what the
// limit leaves beside the address space the process has already reserved:
// the limit less /proc/self/statm's size, the kernel's own count. The test
// runs itself again under `ulimit -v` (a limit cannot be lifted once set,
// so it is not set on this process).
func TestAddressSpaceBudget(t *testing.T) {
	if os.Getenv("LUPI_LIMITS_CHILD") == "1" {
		avail, from := availableMemory()
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Fatal(err)
		}
		pages, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("child: %.0f %.0f %s\n", avail, pages*float64(os.Getpagesize()), from)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc: Linux only")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	const limitKB = 3 << 20 // 3 GiB: room for the test binary, less than the machine's free memory
	cmd := exec.Command(sh, "-c", fmt.Sprintf(`ulimit -v %d && exec "$0" -test.run='^TestAddressSpaceBudget$' -test.count=1`, limitKB), os.Args[0])
	cmd.Env = append(os.Environ(), "LUPI_LIMITS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var avail, vm float64
	var from string
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "child: "); ok {
			f := strings.SplitN(rest, " ", 3)
			avail, _ = strconv.ParseFloat(f[0], 64)
			vm, _ = strconv.ParseFloat(f[1], 64)
			from = f[2]
		}
	}
	if from == "" {
		t.Fatalf("no answer from the child: %s", out)
	}
	if from == "MemAvailable" {
		t.Skipf("the machine has less free memory (%.0f bytes) than the limit leaves", avail)
	}
	if from != "the address-space limit (ulimit -v)" {
		t.Fatalf("budget from %q, want the address-space limit", from)
	}
	want := float64(limitKB)*1024 - vm
	if d := avail - want; d > 32<<20 || d < -32<<20 {
		t.Errorf("budget %.0f bytes, want the limit less the reserved address space: %.0f (statm size %.0f)", avail, want, vm)
	}
}
