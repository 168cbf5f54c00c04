package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/otelspans"
)

// queueTrace is a finished trace of n spans (the last one its root).
func queueTrace(id string, n int) []*otelspans.Span {
	var out []*otelspans.Span
	for i := range n {
		parent := "r"
		if i == n-1 {
			parent = ""
		}
		out = append(out, &otelspans.Span{TraceID: id, SpanID: string(rune('a' + i)), ParentID: parent})
	}
	return out
}

// TestScanQueue: a finished trace waits in its tenant's queue, its spans
// counted towards otlp.maxPendingSpans until its scan ends; the tenants
// take turns; waitScans returns once nothing is queued or in progress.
func TestScanQueue(t *testing.T) {
	o := newOTLPState(&otlpSettings{idle: time.Hour, maxPending: 5, maxLeaks: 10})
	a, b := Principal{Tenant: "a"}, Principal{Tenant: "b"}
	o.add("a", queueTrace("a1", 3))
	o.add("a", queueTrace("a2", 2))
	o.add("b", queueTrace("b1", 1))
	if !o.full(a) || o.full(b) {
		t.Fatalf("full: a %v (5 spans queued), b %v (1)", o.full(a), o.full(b))
	}
	var order []string
	var jobs []scanJob
	o.mu.Lock()
	for {
		j, ok := o.next()
		if !ok {
			break
		}
		order = append(order, j.id)
		jobs = append(jobs, j)
	}
	o.mu.Unlock()
	if got := strings.Join(order, " "); got != "a1 b1 a2" {
		t.Errorf("scan order %s, want a1 b1 a2 (tenants in turn)", got)
	}
	if !o.full(a) {
		t.Error("a trace being scanned no longer counts towards the limit")
	}
	waited := make(chan struct{})
	go func() { o.waitScans(); close(waited) }()
	o.done(jobs[0])
	if o.full(a) {
		t.Error("a scanned trace still counts towards the limit")
	}
	select {
	case <-waited:
		t.Fatal("waitScans returned with scans in progress")
	case <-time.After(20 * time.Millisecond):
	}
	o.done(jobs[1])
	o.done(jobs[2])
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("waitScans did not return once the scans ended")
	}
	// Unfinished traces count too, and the idle sweep queues them.
	o.add("b", queueTrace("b2", 6)[:5])
	if !o.full(b) {
		t.Error("5 spans of an unfinished trace: not full")
	}
	o.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	o.sweep()
	o.mu.Lock()
	j, ok := o.next()
	o.mu.Unlock()
	if !ok || j.id != "b2" || j.ended != "idle" || !o.full(b) {
		t.Errorf("idle trace: %+v %v, full %v", j, ok, o.full(b))
	}
}

// TestKeepLeak: the last maxLeaks records are listed, oldest first, and
// the list does not grow past twice that.
func TestKeepLeak(t *testing.T) {
	tt := &tenantTraces{}
	for i := range 57 {
		tt.keepLeak(LeakRecord{TraceID: strconv.Itoa(i)}, 10)
		if len(tt.leaks) >= 20 {
			t.Fatalf("%d records held for 10", len(tt.leaks))
		}
		got := tt.recentLeaks(10)
		if len(got) != min(i+1, 10) || got[len(got)-1].TraceID != strconv.Itoa(i) || got[0].TraceID != strconv.Itoa(max(0, i-9)) {
			t.Fatalf("after record %d: %d records, %s to %s", i, len(got), got[0].TraceID, got[len(got)-1].TraceID)
		}
	}
}
