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

// The bulk worker's thread runs at nice bulkNice, and the caller's thread
// keeps its own priority.
func TestBulkWorkerRunsAtLowerPriority(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread priorities are set on Linux only")
	}
	nice := func() string { // not t.Skip here: it must not end the worker's goroutine
		b, err := os.ReadFile("/proc/thread-self/stat")
		if err != nil {
			return "unreadable: " + err.Error()
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		return f[16] // field 19 of stat: nice
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mine := nice()
	var worker string
	runBulk(func() { worker = nice() })
	if worker != "10" {
		t.Errorf("the bulk worker runs at nice %s, want 10", worker)
	}
	if nice() != mine {
		t.Errorf("the caller's nice changed from %s to %s", mine, nice())
	}
}

// Starting the bulk worker adds a processor for it (bgwork.go).
func TestBulkWorkerBringsItsOwnP(t *testing.T) {
	runBulk(func() {})
	if got := runtime.GOMAXPROCS(0); got != bulkProcs+1 {
		t.Errorf("GOMAXPROCS %d with the bulk worker running, want %d+1", got, bulkProcs)
	}
}
