package agentleak

import (
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/otelspans"
)

// TestTraceForScanIntoReusesTrace: a trace made over one that held another
// trace (contents quoted, empty, noted or set as text) is TraceForScan's
// trace, in the old trace's events when they have room.
func TestTraceForScanIntoReusesTrace(t *testing.T) {
	traces := demoAndPackSpans(t)
	odd := []otelspans.LeakEvent{
		{EventID: "evt_001", Channel: "user_input", Source: "user", Target: "a", Content: "bad \xff utf-8 ada@example.com"},
		{EventID: "evt_002", Channel: "tool_call", Source: "a", Target: "t", Content: ""},
		{EventID: "evt_003", Channel: "tool_response", Source: "t", Target: "a", Content: "plain"},
		{EventID: "evt_004", Channel: "final_output", Source: "a", Target: "user", Content: "more \xfe"},
	}
	var into Trace
	for pass := range 2 {
		for i, st := range traces {
			evs := otelspans.LeakEvents(st, otelspans.MappingLF)
			if i%2 == 1 {
				evs = append(evs, odd...)
			}
			want := TraceForScan(st, evs)
			before := into.Events
			TraceForScanInto(&into, st, evs)
			if !reflect.DeepEqual(&into, want) && !(len(want.Events) == 0 && len(into.Events) == 0) {
				t.Fatalf("pass %d, trace %s: made over a used trace\n%+v\nTraceForScan\n%+v", pass, st.RunID, into, *want)
			}
			if cap(before) >= len(evs) && len(evs) > 0 && &into.Events[0] != &before[:1][0] {
				t.Fatalf("trace %s: events with room were not reused", st.RunID)
			}
		}
	}
}
