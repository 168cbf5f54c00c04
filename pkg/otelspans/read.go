package otelspans

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lfcli/lf/pkg/diag"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Format is a span file format.
type Format string

// The span file formats.
const (
	Auto      Format = ""           // detected from the content
	OTLPJSON  Format = "otlp-json"  // ExportTraceServiceRequest per line, or one document
	OTLPProto Format = "otlp-proto" // one binary ExportTraceServiceRequest
	SpanList  Format = "spans"      // OpenInference span lists: span objects with flat attributes
)

// Formats lists the formats a flag may force.
var Formats = []Format{OTLPJSON, OTLPProto, SpanList}

// ParseFormat reads a --span-format value ("" or "auto" for Auto).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return Auto, fmt.Errorf("unknown span format %q; valid: auto, otlp-json, otlp-proto, spans", s)
}

// Error is a located problem in a span file.
type Error struct{ Diag diag.Diagnostic }

func (e *Error) Error() string { return e.Diag.String() }

func errAt(file string, line int, format string, args ...any) *Error {
	return &Error{Diag: diag.Diagnostic{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}}
}

// Sniff tells from the first bytes of a file whether it holds spans, and in
// which format; Auto means it does not look like spans (an AgentLeak trace
// or agent event file, or something else).
func Sniff(head []byte) Format {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 {
		return Auto
	}
	// An OTLP protobuf request starts with field 1 (resource_spans),
	// length-delimited: byte 0x0a, which is also a JSON line break.
	proto := head[0] == 0x0a
	if t[0] == '{' || t[0] == '[' {
		f, keys := sniffJSON(t)
		if f == Auto && !keys && proto {
			return OTLPProto
		}
		return f
	}
	if proto {
		return OTLPProto
	}
	return Auto
}

// sniffJSON looks at the top-level keys of the first object (of the
// array); keys tells whether any key could be read.
func sniffJSON(t []byte) (f Format, keys bool) {
	dec := json.NewDecoder(bytes.NewReader(t))
	tok, err := dec.Token()
	if err != nil {
		return Auto, false
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil || tok != json.Delim('{') {
			return Auto, err == nil
		}
	}
	dotted := false
	var hasName, hasAttrs bool
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := k.(string)
		keys = true
		switch key {
		case "resourceSpans", "resource_spans":
			return OTLPJSON, true
		case "events", "run_id", "scenario_id", "agent_id", "tenant_id":
			if !hasAttrs {
				return Auto, true
			}
		case "spans", "spanContext", "context", "traceId", "trace_id", "span_id", "spanId", "span_kind":
			return SpanList, true
		case "name":
			hasName = true
		case "attributes":
			hasAttrs = true
		}
		if strings.Contains(key, ".") {
			dotted = true
		}
		if hasName && hasAttrs {
			return SpanList, true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
	}
	if dotted || hasAttrs {
		return SpanList, keys
	}
	return Auto, keys
}

// Read reads a span file in format f (Auto: detected) and groups its spans
// into traces. file names it in messages and gives the run id of spans
// without a trace id (its base name without extension).
func Read(file string, r io.Reader, f Format) ([]*Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if f == Auto {
		head, _ := br.Peek(16 << 10)
		f = Sniff(head)
	}
	if f == OTLPJSON {
		// OTLP JSON lines are decoded as they are read: the file is never
		// held whole (a trace's spans still are, until the end).
		spans, whole, err := readOTLPLines(file, br)
		if err != nil {
			return nil, err
		}
		if whole == nil {
			return Group(file, spans, Stem(file)), nil
		}
		r = io.MultiReader(bytes.NewReader(whole), br)
	} else {
		r = br
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, errAt(file, 0, "cannot read: %v", err)
	}
	return Decode(file, data, f)
}

// Decode is Read on the file's bytes.
func Decode(file string, data []byte, f Format) ([]*Trace, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if f == Auto {
		f = Sniff(data)
		if f == Auto {
			return nil, errAt(file, 1, "not a span file: expected OTLP JSON (resourceSpans), OTLP protobuf or a list of spans")
		}
	}
	var spans []*Span
	var err error
	switch f {
	case OTLPProto:
		td, perr := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(data)
		if perr != nil {
			return nil, errAt(file, 0, "not valid OTLP protobuf: %v", perr)
		}
		spans = FromPdata(td, 0)
	case OTLPJSON:
		spans, err = readOTLPJSON(file, data)
	default:
		spans, err = readSpanList(file, data)
	}
	if err != nil {
		return nil, err
	}
	return Group(file, spans, Stem(file)), nil
}

// Stem is a file's base name without its extension: the run id of the
// spans of a file that carry no trace id.
func Stem(file string) string {
	b := filepath.Base(file)
	if ext := filepath.Ext(b); ext != "" && ext != b {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// jsonDocs splits data into JSON documents: one per line when its first
// non-blank line is a complete JSON value (JSONL), else the whole data.
// fn gets each document and its line (0 for a whole document).
func jsonDocs(data []byte, fn func(doc []byte, line int) error) error {
	lines := bytes.Split(data, []byte("\n"))
	jsonl := false
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		jsonl = json.Valid(l)
		break
	}
	if !jsonl {
		return fn(data, 0)
	}
	for i, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if err := fn(l, i+1); err != nil {
			return err
		}
	}
	return nil
}

// readOTLPLines decodes OTLP JSON line by line while the first non-blank
// line is a complete JSON value (JSONL); otherwise it returns what it read
// (whole, not nil) for the caller to decode as one document.
func readOTLPLines(file string, br *bufio.Reader) ([]*Span, []byte, error) {
	var spans []*Span
	whole, err := readOTLPLinesEach(file, br, func(got []*Span, _ int) (bool, error) {
		spans = append(spans, got...)
		return true, nil
	})
	if err != nil || whole != nil {
		return nil, whole, err
	}
	return spans, nil, nil
}

// readOTLPLinesEach is readOTLPLines handing the spans of each line to fn
// (with the line) as they are decoded, until fn returns false or an error.
func readOTLPLinesEach(file string, br *bufio.Reader, fn func(spans []*Span, line int) (bool, error)) ([]byte, error) {
	var buf []byte
	decided := false
	c := newStrCache()
	for line := 1; ; line++ {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf[:0], chunk...)
		for err == bufio.ErrBufferFull {
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
		}
		if err != nil && err != io.EOF {
			return nil, errAt(file, line, "cannot read: %v", err)
		}
		doc := bytes.TrimSpace(buf)
		if len(doc) > 0 {
			if !decided {
				decided = true
				if !json.Valid(doc) {
					return append([]byte(nil), buf...), nil
				}
			}
			got, derr := decodeOTLPDocCache(file, doc, line, c)
			if derr != nil {
				return nil, derr
			}
			if more, ferr := fn(got, line); !more || ferr != nil {
				return nil, ferr
			}
		}
		if err == io.EOF {
			return nil, nil
		}
	}
}

// decodeOTLPDoc decodes one OTLP JSON document found at line (0: the
// whole file).
func decodeOTLPDoc(file string, doc []byte, line int) ([]*Span, error) {
	return decodeOTLPDocCache(file, doc, line, nil)
}

// decodeOTLPDocCache is decodeOTLPDoc with the short strings of the
// decoder's earlier documents (c: one goroutine's; nil for none).
func decodeOTLPDocCache(file string, doc []byte, line int, c *strCache) ([]*Span, error) {
	// "scopeSpans" comes first: it is found near the start of a current
	// document, where the other search would read the whole line.
	if !bytes.Contains(doc, []byte(`"scopeSpans"`)) && bytes.Contains(doc, []byte(`"instrumentationLibrarySpans"`)) {
		// OTLP before 0.15 named scopes instrumentation libraries.
		doc = bytes.ReplaceAll(doc, []byte(`"instrumentationLibrarySpans"`), []byte(`"scopeSpans"`))
		doc = bytes.ReplaceAll(doc, []byte(`"instrumentationLibrary"`), []byte(`"scope"`))
	}
	if spans, ok := fastOTLP(doc, line, c); ok {
		return spans, nil
	}
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(doc)
	if err != nil {
		if !json.Valid(doc) {
			var v any
			jerr := json.Unmarshal(doc, &v)
			return nil, errAt(file, max(line, 1), "not valid JSON: %s", jsonMsg(jerr))
		}
		return nil, errAt(file, max(line, 1), "not valid OTLP JSON: %v", err)
	}
	return FromPdata(td, line), nil
}

func readOTLPJSON(file string, data []byte) ([]*Span, error) {
	var spans []*Span
	c := newStrCache()
	err := jsonDocs(data, func(doc []byte, line int) error {
		got, err := decodeOTLPDocCache(file, doc, line, c)
		spans = append(spans, got...)
		return err
	})
	return spans, err
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if err == nil {
		return "invalid"
	}
	return err.Error()
}

// FromPdata lists the spans of OTLP traces in document order; line is
// where they were read (0 for none).
func FromPdata(td ptrace.Traces, line int) []*Span {
	var out []*Span
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		res := NewAttrs(mapKVs(rs.Resource().Attributes()))
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			scope := ss.Scope().Name()
			sl := ss.Spans()
			for k := 0; k < sl.Len(); k++ {
				out = append(out, spanOf(sl.At(k), &res, scope, line))
			}
		}
	}
	return out
}

func spanOf(s ptrace.Span, res *Attrs, scope string, line int) *Span {
	sp := &Span{
		Name:     s.Name(),
		Start:    int64(s.StartTimestamp()),
		End:      int64(s.EndTimestamp()),
		Attrs:    NewAttrs(mapKVs(s.Attributes())),
		Resource: res,
		Scope:    scope,
		Line:     line,
	}
	if id := s.TraceID(); !id.IsEmpty() {
		sp.TraceID = hex.EncodeToString(id[:])
	}
	if id := s.SpanID(); !id.IsEmpty() {
		sp.SpanID = hex.EncodeToString(id[:])
	}
	if id := s.ParentSpanID(); !id.IsEmpty() {
		sp.ParentID = hex.EncodeToString(id[:])
	}
	if k := s.Kind(); k != ptrace.SpanKindUnspecified {
		sp.Kind = strings.ToUpper(k.String())
	}
	switch s.Status().Code() {
	case ptrace.StatusCodeOk:
		sp.Status = "OK"
	case ptrace.StatusCodeError:
		sp.Status = "ERROR"
	}
	evs := s.Events()
	for i := 0; i < evs.Len(); i++ {
		e := evs.At(i)
		sp.Events = append(sp.Events, SpanEvent{Name: e.Name(), Time: int64(e.Timestamp()), Attrs: NewAttrs(mapKVs(e.Attributes()))})
	}
	return sp
}

func mapKVs(m pcommon.Map) []KV {
	out := make([]KV, 0, m.Len())
	for k, v := range m.All() {
		out = append(out, KV{Key: k, Value: valueOf(v)})
	}
	return out
}

func valueOf(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeInt:
		return v.Int()
	case pcommon.ValueTypeDouble:
		return v.Double()
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeMap:
		return mapKVs(v.Map())
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		out := make([]any, 0, s.Len())
		for i := 0; i < s.Len(); i++ {
			out = append(out, valueOf(s.At(i)))
		}
		return out
	case pcommon.ValueTypeBytes:
		return Bytes(base64.StdEncoding.EncodeToString(v.Bytes().AsRaw()))
	}
	return nil
}
