package agentleak

import (
	"bufio"
	"errors"
	"io"
	"time"

	"github.com/lfcli/lf/pkg/agentleak/tracefile"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/otelspans"
)

// SpanOptions say how trace inputs holding OpenTelemetry spans are read.
type SpanOptions struct {
	Format  otelspans.Format  // Auto: detected from the content
	Mapping otelspans.Mapping // lf's mapping (default) or the engine's
}

// OTelAgentName is the agent name of a trace made from spans (the engine's).
const OTelAgentName = "otel_agent"

// TraceFromSpans builds the AgentLeak trace of one span trace: run id =
// the trace id, scenario id = the resource attribute agentleak.scenario_id
// (else the run id), events as the mapping makes them.
func TraceFromSpans(st *otelspans.Trace, m otelspans.Mapping) *Trace {
	return TraceFromEvents(st, otelspans.LeakEvents(st, m))
}

// TraceFromEvents is TraceFromSpans with the trace's events already made
// (event i of the trace is evs[i]).
func TraceFromEvents(st *otelspans.Trace, evs []otelspans.LeakEvent) *Trace {
	t := &Trace{RunID: st.RunID, AgentName: OTelAgentName, ScenarioID: st.ScenarioID, File: st.File, Line: st.Line, InDoc: st.Line == 0}
	var first int64
	for _, s := range st.Spans {
		if s.Start > 0 && (first == 0 || s.Start < first) {
			first = s.Start
		}
	}
	if first > 0 {
		t.Timestamp = time.Unix(0, first).UTC().Format(time.RFC3339Nano)
	}
	t.Events = make([]Event, 0, len(evs))
	for _, e := range evs {
		content := appendJSONString(nil, e.Content)
		t.Events = append(t.Events, Event{EventID: e.EventID, Channel: e.Channel, Source: e.Source, Target: e.Target, Content: content})
	}
	return t
}

// sniffSize is how much of an input is looked at to tell spans from
// AgentLeak traces.
const sniffSize = 16 << 10

// spanInput tells whether the input holds spans; r is wrapped so that
// nothing peeked is lost.
func spanInput(r io.Reader, opt SpanOptions) (io.Reader, otelspans.Format) {
	br := bufio.NewReaderSize(r, sniffSize)
	if opt.Format != otelspans.Auto {
		return br, opt.Format
	}
	head, _ := br.Peek(sniffSize)
	return br, otelspans.Sniff(head)
}

// spanTraces reads a span file and hands its traces to fn in order.
func spanTraces(in Input, r io.Reader, f otelspans.Format, fn func(rt *tracefile.RawTrace) bool) bool {
	traces, err := otelspans.Read(in.Display, r, f)
	if err != nil {
		var oe *otelspans.Error
		if errors.As(err, &oe) {
			err = &TraceError{Diag: oe.Diag}
		} else {
			err = diag.Invalidf("%s: %v", in.Display, err)
		}
		return fn(&tracefile.RawTrace{File: in.Display, Err: err})
	}
	for _, st := range traces {
		if !fn(&tracefile.RawTrace{File: in.Display, T: TraceFromSpans(st, in.Spans.Mapping)}) {
			return false
		}
	}
	return true
}

// LoadVaultArgs loads vault arguments (files, folders, globs) as --vaults
// does; display names files in messages. The warnings come back with them.
func LoadVaultArgs(args []string, display func(string) string) (*Vaults, diag.List, error) {
	vs, _, warns, err := loadVaultArgs(args, display)
	return vs, warns, err
}
