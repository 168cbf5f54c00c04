package agentleak

import (
	"io"

	"github.com/lfcli/lf/pkg/agentleak/detect"
	"github.com/lfcli/lf/pkg/agentleak/tracefile"
)

// The trace types and reader live in pkg/agentleak/tracefile (the trace
// decoder); these names keep them where the evaluation's callers find them.

// Channels lists the channels an event may be recorded on.
var Channels = tracefile.Channels

// Trace is one recorded agent run (tracefile.Trace).
type Trace = tracefile.Trace

// Event is one event of a trace (tracefile.Event).
type Event = tracefile.Event

// TraceReader reads the traces of a JSONL file or JSON document
// (tracefile.TraceReader).
type TraceReader = tracefile.TraceReader

// TraceError is a located problem with one trace (tracefile.TraceError).
type TraceError = tracefile.TraceError

// NewTraceReader reads the traces of r, named file in messages.
func NewTraceReader(file string, r io.Reader) *TraceReader { return tracefile.NewTraceReader(file, r) }

// Families lists the built-in detector families (detect.Families).
var Families = detect.Families
