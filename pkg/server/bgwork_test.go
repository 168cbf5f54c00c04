package server

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

func TestRunBulkRunsJobsAndRaisesTheirPanics(t *testing.T) {
	ran := false
	runBulk(func() { ran = true })
	if !ran {
		t.Fatal("the job did not run")
	}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("recovered %v, want the job's panic", p)
			}
		}()
		runBulk(func() { panic("boom") })
		t.Fatal("runBulk returned after a panicking job")
	}()
	n := 0
	runBulk(func() { n++ })
	if n != 1 {
		t.Fatal("the worker did not outlive a panicking job")
	}
}

// The bulk worker's thread runs in the idle scheduling class (or at nice
// bulkNice where the kernel refuses it), and the caller's thread keeps its
// own policy and priority.
func TestBulkWorkerRunsAtLowerPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread priorities are set on Linux only")
	}
	prio := func() string { // not t.Skip here: it must not end the worker's goroutine
		b, err := os.ReadFile("/proc/thread-self/stat")
		if err != nil {
			return "unreadable: " + err.Error()
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		return "policy " + f[38] + " nice " + f[16] // fields 41 and 19 of stat
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mine := prio()
	var worker string
	runBulk(func() { worker = prio() })
	if worker != "policy 5 nice 0" && worker != "policy 0 nice 10" {
		t.Errorf("the bulk worker runs at %s, want policy 5 (SCHED_IDLE) or nice 10", worker)
	}
	if prio() != mine {
		t.Errorf("the caller's priority changed from %s to %s", mine, prio())
	}
}

// Starting the bulk worker adds a processor for it (bgwork.go).
func TestBulkWorkerBringsItsOwnP(t *testing.T) {
	runBulk(func() {})
	if got := runtime.GOMAXPROCS(0); got != bulkProcs+1 {
		t.Errorf("GOMAXPROCS %d with the bulk worker running, want %d+1", got, bulkProcs)
	}
}
