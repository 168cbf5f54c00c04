package server

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/otelspans"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// wantLeakRecord is the record of a scanned trace as scanTrace made it
// before its buffers and bookkeeping were made cheaper: a fresh scanner,
// events and trace allocated for the trace, each event's agent from
// Trace.Agent.
func wantLeakRecord(t *testing.T, s *Server, tenant, id string, spans []*otelspans.Span, ended string) (LeakRecord, map[string]*otelspans.LeakEvent) {
	t.Helper()
	st := &otelspans.Trace{RunID: id, File: "otlp", Spans: spans}
	for _, sp := range spans {
		if v := sp.ResourceStr(otelspans.ScenarioAttr); v != "" {
			st.ScenarioID = v
			break
		}
	}
	if st.ScenarioID == "" {
		st.ScenarioID = id
	}
	evs := otelspans.LeakEvents(st, otelspans.MappingLF)
	ts := s.otlp.set.scanners[tenant]
	if ts == nil {
		ts = &tenantScanner{}
	}
	res, err := agentleak.NewScanner(ts.cfg, ts.vaults).Scan(agentleak.TraceForScan(st, evs))
	if err != nil {
		t.Fatal(err)
	}
	rec := LeakRecord{
		TraceID: id, ScenarioID: st.ScenarioID, Spans: len(spans), Events: res.Events, Ended: ended,
		ScannedAt: s.now().UTC().Truncate(time.Millisecond), RiskIndex: res.RiskIndex, PrivacyScore: res.PrivacyScore,
		Verdict: res.Verdict, Blocked: res.Blocked, BlockReasons: append([]string(nil), res.BlockReasons...),
		LeakedSecrets: res.LeakedSecrets,
	}
	s.leakCompliance(&rec, res, tenant)
	agents := map[string]bool{}
	for _, e := range evs {
		if a := st.Agent(e.Span); a != "" {
			agents[a] = true
		}
	}
	for a := range agents {
		rec.Agents = append(rec.Agents, a)
	}
	sort.Strings(rec.Agents)
	leakers := map[string]*otelspans.LeakEvent{}
	for _, f := range res.Findings {
		a := ""
		if f.Event >= 0 && f.Event < len(evs) {
			a = st.Agent(evs[f.Event].Span)
			if f.Leaked && a != "" && leakers[a] == nil {
				leakers[a] = &evs[f.Event]
			}
		}
		rec.Findings = append(rec.Findings, LeakFinding{
			EventID: f.EventID, Channel: f.Channel, Agent: a, DataType: f.DataType, Level: f.Level,
			Severity: f.Severity, Detector: f.Detector, Tier: f.Tier, Leaked: f.Leaked, Value: agentleak.Redact(f.Value),
		})
	}
	if !res.Blocked {
		leakers = nil // a trace that is not blocked denies nobody
	}
	return rec, leakers
}

// sameLeakers tells whether two sets of leaking agents name the same
// agents, each with the same event of the same span.
func sameLeakers(a, b map[string]*otelspans.LeakEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for k, e := range a {
		f := b[k]
		if f == nil || f.EventID != e.EventID || f.Span != e.Span || f.ToolName != e.ToolName || f.Content != e.Content {
			return false
		}
	}
	return true
}

// scanTraceCases are finished traces of varied shapes: the leaky trace
// (blocked, its agent from its root), the benchmark's 100 GenAI spans,
// agents named at several depths, on no span (the service's name) and by
// spans whose parent never arrived, and the repository's span file.
func scanTraceCases(t *testing.T) map[string][]*otelspans.Span {
	t.Helper()
	out := map[string][]*otelspans.Span{}
	add := func(td ptrace.Traces) {
		for _, sp := range otelspans.FromPdata(td, 0) {
			out[sp.TraceID] = append(out[sp.TraceID], sp)
		}
	}
	add(leakyTrace("", 0x0a))
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(benchRequest(100, 3))
	if err != nil {
		t.Fatal(err)
	}
	add(td)
	add(otlpTraces("", 0x0b,
		otlpSpan{2, 1, "plan", map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Planner", "gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","content":"mail ada@example.com the plan"}]}]`}},
		otlpSpan{3, 2, "execute_tool send_email", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email", "gen_ai.tool.call.arguments": `{"to":"ada@example.com","ssn":"123-45-6789"}`, "gen_ai.tool.call.result": "sent"}},
		otlpSpan{4, 9, "orphan tool", map[string]any{"tool.name": "lookup", "tool.parameters": "card 4111 1111 1111 1111", "agent.name": "Orphan"}},
		otlpSpan{5, 8, "orphan chat", map[string]any{"gen_ai.operation.name": "chat", "gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"call 555-0100"}]}]`}},
		otlpSpan{6, 3, "deep", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.agent.id": "agt_deep", "gen_ai.tool.call.arguments": "key sk-live-abcdefghijklmnopqrstuvwx"}},
		otlpSpan{7, 6, "deeper", map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.result": "ada@example.com"}},
		otlpSpan{1, 0, "root", map[string]any{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "agt_root"}},
	))
	// No span names an agent, and no resource a service: events without
	// an agent.
	out["nobody"] = []*otelspans.Span{
		{TraceID: "nobody", SpanID: "r", Name: "root", Attrs: otelspans.NewAttrs([]otelspans.KV{{Key: "input.value", Value: "my SSN is 123-45-6789"}})},
		{TraceID: "nobody", SpanID: "t", ParentID: "r", Name: "tool", Attrs: otelspans.NewAttrs([]otelspans.KV{{Key: "tool.name", Value: "mail"}, {Key: "tool.parameters", Value: "to ada@example.com, SSN 123-45-6789"}})},
		{TraceID: "nobody", SpanID: "u", ParentID: "r", Name: "named", Attrs: otelspans.NewAttrs([]otelspans.KV{{Key: "agent.name", Value: "Named"}, {Key: "output.value", Value: "card 4111 1111 1111 1111"}})},
	}
	f := filepath.Join("..", "..", "project", "agentleak", "spans.otlp.jsonl")
	r, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	traces, err := otelspans.Read(f, r, otelspans.Auto)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range traces {
		out[tr.RunID] = tr.Spans
	}
	return out
}

// TestScanTraceRecords: scanTrace keeps the record the plain scan of the
// trace makes, with a worker's buffer that a larger trace used before (or
// that was left dirty), and clears the buffer after each scan, keeping its
// room for the next one.
func TestScanTraceRecords(t *testing.T) {
	s := newServer(t, otlpConfig(t, ""))
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return at }
	tt := s.otlp.tenant("t1")
	cases := scanTraceCases(t)
	ids := make([]string, 0, len(cases))
	for id := range cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf scanBuf
	var kept []LeakRecord // what each scan's record should be, in order
	for pass := range 2 {
		for i, id := range ids {
			spans := cases[id]
			dirty := pass == 1 && i%2 == 0
			if dirty {
				// A buffer someone forgot to clear: stale events of another
				// trace in all of its room.
				other := cases[ids[(i+1)%len(ids)]]
				buf.evs = otelspans.LeakEvents(&otelspans.Trace{Spans: other}, otelspans.MappingLF)
				agentleak.TraceForScanInto(&buf.trace, &otelspans.Trace{Spans: other}, buf.evs)
			}
			want, wantLeakers := wantLeakRecord(t, s, "t1", id, spans, "root")
			rec, leakers, err := s.scanRecord(&buf, "t1", tt, id, &pendingTrace{spans: spans}, "root")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec, want) {
				t.Fatalf("trace %s (pass %d):\n got %+v\nwant %+v", id, pass, rec, want)
			}
			if !sameLeakers(leakers, wantLeakers) {
				t.Fatalf("trace %s (pass %d): leaking agents\n got %v\nwant %v", id, pass, leakers, wantLeakers)
			}
			if dirty {
				buf.reset()
				buf.evs = otelspans.LeakEvents(&otelspans.Trace{Spans: cases[ids[(i+1)%len(ids)]]}, otelspans.MappingLF)
			}
			if err := s.scanTrace(context.Background(), &buf, "t1", tt, id, &pendingTrace{spans: spans}, "root"); err != nil {
				t.Fatal(err)
			}
			if got := tt.leaks[len(tt.leaks)-1]; !reflect.DeepEqual(got, want) {
				t.Fatalf("trace %s (pass %d): kept\n got %+v\nwant %+v", id, pass, got, want)
			}
			kept = append(kept, want)
			if cap(buf.evs) == 0 || cap(buf.trace.Events) == 0 {
				t.Fatalf("trace %s: the buffer kept no room for the next trace", id)
			}
			if dirty {
				// What the scan did not use of a dirty buffer stays dirty:
				// start the next trace with a clean one.
				buf = scanBuf{}
				continue
			}
			for _, e := range buf.evs[:cap(buf.evs)] {
				if e != (otelspans.LeakEvent{}) {
					t.Fatalf("trace %s: the buffer keeps an event after the scan: %+v", id, e)
				}
			}
			for _, e := range buf.trace.Events[:cap(buf.trace.Events)] {
				if !reflect.DeepEqual(e, agentleak.Event{}) {
					t.Fatalf("trace %s: the buffer's trace keeps an event after the scan: %+v", id, e)
				}
			}
			for _, a := range append(buf.eventAgent[:cap(buf.eventAgent)], buf.agents[:cap(buf.agents)]...) {
				if a != "" {
					t.Fatalf("trace %s: the buffer keeps an agent after the scan: %q", id, a)
				}
			}
			if !reflect.DeepEqual(buf.trace, agentleak.Trace{Events: buf.trace.Events}) {
				t.Fatalf("trace %s: the buffer's trace is not reset: %+v", id, buf.trace)
			}
		}
	}
	// The scanners reuse their results: no record kept shares anything
	// with a later scan's.
	if got := tt.recentLeaks(len(kept)); !reflect.DeepEqual(got, kept[len(kept)-len(got):]) {
		t.Fatalf("the records kept changed with later scans:\n got %+v\nwant %+v", got, kept)
	}
	// A huge trace's buffers are not kept.
	buf.evs = make([]otelspans.LeakEvent, 0, maxScanBufEvents+1)
	buf.reset()
	if buf.evs != nil || buf.trace.Events != nil {
		t.Fatalf("a buffer with room for %d events was kept", maxScanBufEvents+1)
	}
}
