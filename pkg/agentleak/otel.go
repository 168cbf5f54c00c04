package agentleak

import (
	"bufio"
	"errors"
	"io"
	"os"
	"time"
	"unicode/utf8"

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
	t.Timestamp = firstStart(st)
	// The contents, quoted, share one buffer sized for them (escapes aside).
	size := 0
	for i := range evs {
		size += len(evs[i].Content) + 2
	}
	buf := make([]byte, 0, size+size/16)
	t.Events = make([]Event, len(evs))
	for i := range evs {
		e := &evs[i]
		o := len(buf)
		buf = appendJSONString(buf, e.Content)
		t.Events[i] = Event{EventID: e.EventID, Channel: e.Channel, Source: e.Source, Target: e.Target, Content: buf[o:len(buf):len(buf)]}
		t.Events[i].NoteText(e.Content)
	}
	return t
}

// TraceForScan is TraceFromEvents for a trace that is scanned and never
// written out: the events' texts are not quoted into JSON contents (which
// the scanner would only read back); an event's Content is empty, and its
// text is noted for the scanner (tracefile.Event.SetText). A text that is
// not valid UTF-8 is quoted as TraceFromEvents quotes it.
func TraceForScan(st *otelspans.Trace, evs []otelspans.LeakEvent) *Trace {
	t := new(Trace)
	TraceForScanInto(t, st, evs)
	return t
}

// TraceForScanInto is TraceForScan making the trace in t, whose Events
// slice it reuses when it is large enough: a caller scanning trace after
// trace (the server's scan workers) allocates no events per trace. Every
// other field of t is replaced.
func TraceForScanInto(t *Trace, st *otelspans.Trace, evs []otelspans.LeakEvent) {
	events := t.Events[:0]
	if cap(events) < len(evs) {
		events = make([]Event, len(evs))
	}
	*t = Trace{RunID: st.RunID, AgentName: OTelAgentName, ScenarioID: st.ScenarioID, File: st.File, Line: st.Line, InDoc: st.Line == 0, Events: events[:len(evs)]}
	t.Timestamp = firstStart(st)
	for i := range evs {
		e := &evs[i]
		t.Events[i] = Event{EventID: e.EventID, Channel: e.Channel, Source: e.Source, Target: e.Target}
		if e.Content == "" {
			t.Events[i].Content = emptyContent
		} else if utf8.ValidString(e.Content) {
			t.Events[i].SetText(e.Content)
		} else {
			t.Events[i].Content = appendJSONString(nil, e.Content)
			t.Events[i].NoteText(e.Content)
		}
	}
}

// emptyContent is the content of an event without text (never written to).
var emptyContent = []byte(`""`)

// firstStart is the earliest span start of a trace as the trace's
// timestamp, "" when no span has one.
func firstStart(st *otelspans.Trace) string {
	var first int64
	for _, s := range st.Spans {
		if s.Start > 0 && (first == 0 || s.Start < first) {
			first = s.Start
		}
	}
	if first > 0 {
		return time.Unix(0, first).UTC().Format(time.RFC3339Nano)
	}
	return ""
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

// spanTraces reads a span file and hands its traces to fn in order, each
// as soon as it is complete (a named file is read twice for that: see
// otelspans.Stream), with decoders goroutines decoding its lines; each
// trace is mapped to events by whoever decodes the RawTrace.
func spanTraces(in Input, r io.Reader, f otelspans.Format, decoders int, fn func(rt *tracefile.RawTrace) bool) bool {
	var reopen func() (io.ReadCloser, error)
	if in.Path != "-" && in.Path != "" {
		reopen = func() (io.ReadCloser, error) { return os.Open(in.Path) }
	}
	more := true
	m := in.Spans.Mapping
	err := otelspans.StreamDecoders(in.Display, r, f, reopen, decoders, func(st *otelspans.Trace) bool {
		more = fn(&tracefile.RawTrace{
			File:     in.Display,
			Make:     func() *Trace { return TraceFromSpans(st, m) },
			ScanOnly: func() *Trace { return TraceForScan(st, otelspans.LeakEvents(st, m)) },
		})
		return more
	})
	if err != nil {
		var oe *otelspans.Error
		if errors.As(err, &oe) {
			err = &TraceError{Diag: oe.Diag}
		} else {
			err = diag.Invalidf("%s: %v", in.Display, err)
		}
		return fn(&tracefile.RawTrace{File: in.Display, Err: err})
	}
	return more
}

// LoadVaultArgs loads vault arguments (files, folders, globs) as --vaults
// does; display names files in messages. The warnings come back with them.
func LoadVaultArgs(args []string, display func(string) string) (*Vaults, diag.List, error) {
	vs, _, warns, err := loadVaultArgs(args, display)
	return vs, warns, err
}
