package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// Channels are the eight channels an AgentLeak trace reports events on.
var Channels = []string{"user_input", "final_output", "inter_agent_message", "shared_memory", "tool_call", "tool_response", "log", "generated_file"}

// baseline channels carry what the agent was given: what shows there enters
// the vault but never counts as leaked.
func IsBaseline(ch string) bool { return ch == "user_input" || ch == "tool_response" }

func validChannel(ch string) bool {
	for _, c := range Channels {
		if c == ch {
			return true
		}
	}
	return false
}

// Trace is one recorded agent run.
type Trace struct {
	RunID      string  `json:"run_id"`
	AgentName  string  `json:"agent_name"`
	ScenarioID string  `json:"scenario_id"`
	Timestamp  string  `json:"timestamp"`
	Events     []Event `json:"events"`

	// Where the trace came from, for messages: the file and the line of a
	// JSONL trace; for a trace in a JSON document (InDoc), Pointer is its
	// JSON pointer in the file ("" for a document that is one trace).
	File    string `json:"-"`
	Line    int    `json:"-"`
	InDoc   bool   `json:"-"`
	Pointer string `json:"-"`
}

// Event is one message of a trace on one channel. Content stays raw JSON
// until it is rendered to text, so that object keys keep their order.
type Event struct {
	EventID string          `json:"event_id"`
	Channel string          `json:"channel"`
	Source  string          `json:"source"`
	Target  string          `json:"target"`
	Content json.RawMessage `json:"content"`

	// text is what the fast decoder learnt of Content while it checked it
	// (ContentStr and the bits after it), so that the scanner need not
	// search it again; zero (nothing known) from any other decoder. Code
	// that replaces a decoded event's Content must clear it.
	text uint8
	// dec and decN are the decoded text of an escaped content string when
	// text has ContentDec: the fast decoder unquoted it while it checked
	// it, into its slab's text buffer (see slabText), which a later trace
	// reuses only once this event is given back to the slab.
	decN uint32
	dec  unsafe.Pointer
}

// TraceReader streams traces from a JSONL file (one trace per line), a JSON
// file holding one trace, or a JSON array of traces. It holds one block of
// lines (blockReader) and the trace being decoded; a trace it returned
// keeps its own block alive.
type TraceReader struct {
	file    string
	br      blockReader
	line    int
	dec     *json.Decoder // whole-document mode
	arr     bool
	n       int // traces read from the array so far
	done    bool
	decided bool
	events  []Event // scratch list of the fast decoder
}

// NewTraceReader reads traces from r; file names it in messages.
func NewTraceReader(file string, r io.Reader) *TraceReader {
	return &TraceReader{file: file, br: blockReader{r: skipBOM(r)}}
}

// Next returns the next trace, io.EOF at the end, or a diag.Diagnostic
// error (*TraceError) for a bad trace; reading can continue after a
// TraceError except in whole-document mode.
func (tr *TraceReader) Next() (*Trace, error) {
	rt, err := tr.NextRaw()
	if err != nil {
		return nil, err
	}
	return rt.Decode(&tr.events)
}

// RawTrace is one trace as the reader found it: a JSONL line not decoded
// yet (data), or a trace of a JSON document or the error that stopped it
// (t, err). Decoding a line is left to whoever scans it, so that traces are
// decoded in parallel.
type RawTrace struct {
	File string
	Line int
	Data []byte
	T    *Trace
	Err  error
	// Make, when not nil, makes the trace on demand instead of T (a span
	// trace is mapped to events by whoever scans it, in parallel).
	Make func() *Trace
	// ScanOnly, when not nil, is Make for a reader that only scans the
	// trace (DecodeForScan): its events' texts need not be written as
	// JSON contents.
	ScanOnly func() *Trace
}

// DecodeForScan is DecodeInto for a caller that scans the trace and
// writes none of it out.
func (rt *RawTrace) DecodeForScan(t *Trace, events *[]Event) (*Trace, error) {
	if rt.Data == nil && rt.ScanOnly != nil && rt.Err == nil {
		return rt.ScanOnly(), nil
	}
	return rt.DecodeInto(t, events)
}

// Decode returns the trace; events is a scratch list for the fast decoder.
func (rt *RawTrace) Decode(events *[]Event) (*Trace, error) {
	return rt.DecodeInto(nil, events)
}

// DecodeInto is decode into t, a trace the caller reuses (nil: a new one).
func (rt *RawTrace) DecodeInto(t *Trace, events *[]Event) (*Trace, error) {
	if rt.Data == nil {
		if rt.Make != nil && rt.Err == nil {
			return rt.Make(), nil
		}
		return rt.T, rt.Err
	}
	if t == nil {
		t = new(Trace)
	}
	return decodeTraceInto(t, rt.File, rt.Line, rt.Data, events)
}

// NextRaw returns the next trace without decoding a JSONL line, or io.EOF
// at the end; every other problem is in the RawTrace.
func (tr *TraceReader) NextRaw() (RawTrace, error) {
	if tr.done {
		return RawTrace{}, io.EOF
	}
	if tr.dec != nil {
		return tr.docRaw()
	}
	for {
		line, err := tr.br.readLine()
		if len(line) == 0 && err != nil {
			tr.done = true
			if errors.Is(err, io.EOF) {
				return RawTrace{}, io.EOF
			}
			return RawTrace{File: tr.file, Err: err}, nil
		}
		tr.line++
		trim := bytes.TrimSpace(line)
		if len(trim) == 0 {
			if err != nil {
				tr.done = true
				return RawTrace{}, io.EOF
			}
			continue
		}
		if !tr.decided {
			// The first non-blank line decides the mode: a complete JSON
			// value on it means JSONL; otherwise the file is one JSON
			// document (a trace, or an array of traces).
			tr.decided = true
			if trim[0] == '[' || (trim[0] == '{' && !json.Valid(trim)) {
				rest := io.MultiReader(bytes.NewReader(line), tr.br.rest())
				tr.dec = json.NewDecoder(rest)
				if trim[0] == '[' {
					if _, err := tr.dec.Token(); err != nil {
						tr.done = true
						return RawTrace{File: tr.file, Err: tr.docErr(err)}, nil
					}
					tr.arr = true
				}
				return tr.docRaw()
			}
		}
		return RawTrace{File: tr.file, Line: tr.line, Data: trim}, nil
	}
}

// docRaw is nextRaw in whole-document mode: the trace is decoded here.
func (tr *TraceReader) docRaw() (RawTrace, error) {
	t, err := tr.nextDoc()
	if err == io.EOF {
		return RawTrace{}, io.EOF
	}
	return RawTrace{File: tr.file, T: t, Err: err}, nil
}

// blockReader reads lines into blocks: a trace decoded from a line refers
// to the line's bytes instead of a copy of them (copying every trace was a
// visible share of a scan). A block is reused only when the reader is told
// that nothing refers to the lines already returned once the next line is
// asked for (reuse): a scan that handles each trace before reading the
// next, and keeps nothing of it, then reads the whole input through one
// block instead of a fresh block per 128 KB (fresh memory was zeroed and
// page-faulted in: a tenth of a one-worker scan of a large file).
type blockReader struct {
	r        io.Reader
	blk      []byte
	off, end int   // the unread bytes are blk[off:end]
	err      error // the reader's error (io.EOF at the end), once seen
	reuse    bool
}

// BlockSize is the size of a new block; a longer line gets a larger one.
const BlockSize = 128 << 10

// readLine returns the next line with its '\n', or the last bytes with the
// reader's error (io.EOF at the end).
func (b *blockReader) readLine() ([]byte, error) {
	scanned := b.off // blk[off:scanned] holds no '\n'
	for {
		if k := bytes.IndexByte(b.blk[scanned:b.end], '\n'); k >= 0 {
			e := scanned + k + 1
			line := b.blk[b.off:e:e]
			b.off = e
			return line, nil
		}
		scanned = b.end
		if b.err != nil {
			line := b.blk[b.off:b.end:b.end]
			b.off = b.end
			return line, b.err
		}
		if b.end == len(b.blk) {
			// The block is full: the line begun moves to a new block (with
			// reuse, to the front of this one while it fills no more than
			// half of it).
			n := b.end - b.off
			nb := b.blk
			if !b.reuse || len(b.blk) == 0 || n > len(b.blk)/2 {
				nb = make([]byte, max(BlockSize, 2*n))
			}
			copy(nb, b.blk[b.off:b.end])
			b.blk, b.off, b.end, scanned = nb, 0, n, n
		}
		m, err := b.r.Read(b.blk[b.end:])
		b.end += m
		if err != nil {
			b.err = err
		}
	}
}

// rest reads what readLine has not returned yet.
func (b *blockReader) rest() io.Reader {
	left := bytes.NewReader(b.blk[b.off:b.end])
	b.off = b.end
	if b.err != nil {
		return io.MultiReader(left, errReader{b.err})
	}
	return io.MultiReader(left, b.r)
}

// errReader returns err on every read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func (tr *TraceReader) nextDoc() (*Trace, error) {
	if tr.arr && !tr.dec.More() {
		tr.done = true
		if _, err := tr.dec.Token(); err != nil { // the closing ]
			return nil, tr.docErr(err)
		}
		return nil, tr.trailing()
	}
	var raw json.RawMessage
	if err := tr.dec.Decode(&raw); err != nil {
		tr.done = true
		return nil, tr.docErr(err)
	}
	if !tr.arr {
		tr.done = true
		if err := tr.trailing(); err != io.EOF {
			return nil, err
		}
	}
	t, err := decodeTrace(tr.file, 0, raw, nil)
	if t != nil {
		t.InDoc = true
		if tr.arr {
			t.Pointer = "/" + strconv.Itoa(tr.n)
		}
	}
	tr.n++
	return t, err
}

// trailing returns io.EOF when nothing but space follows the document.
func (tr *TraceReader) trailing() error {
	end := tr.dec.InputOffset()
	if _, err := tr.dec.Token(); err != io.EOF {
		// The document began on line tr.line; say where the extra data starts.
		return &TraceError{Diag: diag.Diagnostic{File: tr.file, Line: tr.line, Msg: fmt.Sprintf("unexpected data after the JSON document that starts here, %d bytes into it: give one trace or one array per file, or JSONL (one whole trace per line)", end)}}
	}
	return io.EOF
}

func (tr *TraceReader) docErr(err error) error {
	return &TraceError{Diag: diag.Diagnostic{File: tr.file, Line: 1, Msg: "not valid JSON: " + jsonMsg(err)}}
}

// TraceError is a located problem in one trace.
type TraceError struct {
	Diag diag.Diagnostic
}

// Error is the located message.
func (e *TraceError) Error() string { return e.Diag.String() }

// TraceErrorf is a located problem with one trace: the file, its line,
// the event (-1: the trace itself) and a JSON pointer in the trace.
func TraceErrorf(file string, line int, event int, ptr, format string, args ...any) *TraceError {
	msg := fmt.Sprintf(format, args...)
	if event >= 0 {
		msg = fmt.Sprintf("event %d: %s", event, msg)
	}
	return &TraceError{Diag: diag.Diagnostic{File: file, Line: line, Pointer: ptr, Msg: msg}}
}

func jsonMsg(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	return err.Error()
}

// decodeTrace decodes and checks one trace. The fast path decodes the whole
// line at once; only a failing trace is decoded again piece by piece to say
// which event and field is wrong.
// events is the reader's scratch list for the fast path (nil: none). The
// trace refers to data's bytes, which the caller hands over and must not
// change.
func decodeTrace(file string, line int, data []byte, events *[]Event) (*Trace, error) {
	return decodeTraceInto(new(Trace), file, line, data, events)
}

// decodeTraceInto is decodeTrace into t, whatever t held before.
func decodeTraceInto(t *Trace, file string, line int, data []byte, events *[]Event) (*Trace, error) {
	*t = Trace{File: file, Line: line}
	if !fastDecodeTrace(data, t, events) {
		*t = Trace{File: file, Line: line}
		if err := json.Unmarshal(data, t); err != nil {
			return nil, locate(file, line, data, err)
		}
	}
	if t.Events == nil {
		// A trace without events (or with events: null) is malformed; an
		// empty list is a run with no events and scans as Pass, as the
		// reference engine does.
		return nil, TraceErrorf(file, line, -1, "/events", "missing events: a trace needs events: [...] (an empty list for a run with no events)")
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.EventID == "" {
			e.EventID = fmt.Sprintf("evt_%03d", i+1)
		}
		if e.Target == "" {
			e.Target = "unknown"
		}
		if e.Channel == "" {
			return nil, TraceErrorf(file, line, i, fmt.Sprintf("/events/%d/channel", i), "missing channel; valid channels: %s", strings.Join(Channels, ", "))
		}
		if !validChannel(e.Channel) {
			return nil, TraceErrorf(file, line, i, fmt.Sprintf("/events/%d/channel", i), "unknown channel %q; valid channels: %s", e.Channel, strings.Join(Channels, ", "))
		}
		if len(e.Content) > 0 {
			switch e.Content[0] {
			case '"', '{', '[', 'n':
			default:
				if !isScalarJSON(e.Content) {
					return nil, TraceErrorf(file, line, i, fmt.Sprintf("/events/%d/content", i), "content must be a string, object or array")
				}
			}
		}
	}
	return t, nil
}

func isScalarJSON(b json.RawMessage) bool {
	return len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || b[0] == 't' || b[0] == 'f')
}

// locate turns a decode error into a message naming the event and field.
func locate(file string, line int, data []byte, err error) *TraceError {
	var top map[string]json.RawMessage
	if e := json.Unmarshal(data, &top); e != nil {
		if json.Valid(data) {
			return TraceErrorf(file, line, -1, "", "a trace must be a JSON object")
		}
		return TraceErrorf(file, line, -1, "", "not valid JSON: %s", jsonMsg(e))
	}
	for _, k := range []string{"run_id", "agent_name", "scenario_id", "timestamp"} {
		if v, ok := top[k]; ok {
			var s string
			if json.Unmarshal(v, &s) != nil && string(v) != "null" {
				return TraceErrorf(file, line, -1, "/"+k, "must be a string")
			}
		}
	}
	var events []json.RawMessage
	if v, ok := top["events"]; ok {
		if json.Unmarshal(v, &events) != nil {
			return TraceErrorf(file, line, -1, "/events", "must be an array of events")
		}
	}
	for i, ev := range events {
		var fields map[string]json.RawMessage
		if json.Unmarshal(ev, &fields) != nil {
			return TraceErrorf(file, line, i, fmt.Sprintf("/events/%d", i), "an event must be a JSON object")
		}
		for _, k := range []string{"event_id", "channel", "source", "target"} {
			if v, ok := fields[k]; ok {
				var s string
				if json.Unmarshal(v, &s) != nil && string(v) != "null" {
					return TraceErrorf(file, line, i, fmt.Sprintf("/events/%d/%s", i, k), "must be a string")
				}
			}
		}
	}
	return TraceErrorf(file, line, -1, "", "%s", jsonMsg(err))
}

// EventText renders an event's content as the text detectors scan: a string
// as is; an object as `key: value` pairs (underscores and dashes in keys
// turned into spaces) joined by " | "; an array as its items joined by " | ".
func EventText(raw json.RawMessage, buf []byte) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2 && utf8.Valid(raw) {
			// raw belongs to the decoded trace and is never written again,
			// so the text can share its bytes.
			return unsafe.String(&raw[1], len(raw)-2), nil
		}
		if s, ok := jsonlex.Unquote(raw); ok {
			return s, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	if out, ok := AppendValueText(buf[:0], raw); ok {
		return string(out), nil
	}
	return decodedValueText(raw)
}

// decodedValueText renders a JSON value through encoding/json's token
// stream: the reference for AppendValueText, and the path for what that
// does not take on.
func decodedValueText(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := renderValue(dec, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

func renderValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	return renderToken(dec, tok, b)
}

func renderToken(dec *json.Decoder, tok json.Token, b *strings.Builder) error {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			first := true
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if !first {
					b.WriteString(" | ")
				}
				first = false
				b.WriteString(strings.NewReplacer("_", " ", "-", " ").Replace(k))
				b.WriteString(": ")
				if err := renderValue(dec, b); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		case '[':
			first := true
			for dec.More() {
				if !first {
					b.WriteString(" | ")
				}
				first = false
				if err := renderValue(dec, b); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		}
	case string:
		b.WriteString(v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	}
	return nil
}

// Known is what the fast decoder learnt of the event's Content while it
// checked it (ContentStr and the bits after it); zero from any other
// decoder.
func (e *Event) Known() uint8 { return e.text }

// Decoded is the decoded text of an escaped content string when Known has
// ContentDec: a pointer into the decoder's slab text buffer and its length.
func (e *Event) Decoded() (unsafe.Pointer, uint32) { return e.dec, e.decN }

// NoteText tells the scanner what it would otherwise learn by unquoting
// the event's content again (see Known): text is the text that Content,
// set just before by a JSON writer, quotes. Quoting adds no escape only to
// valid UTF-8 without quotes, backslashes or control characters (an
// invalid byte is written as \ufffd), so such a content is its own text;
// a content with escapes is the text when that is valid UTF-8. No UTF-8
// check is left to do in either case (ContentHigh unset).
func (e *Event) NoteText(text string) {
	e.text, e.dec, e.decN = 0, nil, 0
	if len(e.Content) == len(text)+2 {
		e.text = ContentStr
	} else if text != "" && uint64(len(text)) < 1<<32 && utf8.ValidString(text) {
		e.text = ContentStr | ContentEsc | ContentDec
		e.dec, e.decN = unsafe.Pointer(unsafe.StringData(text)), uint32(len(text))
	}
}

// SetText makes valid UTF-8 text the content of an event that is only
// scanned, never written out: Content is left empty and the scanner reads
// text as the decoded string (ContentDec), so a writer need not quote it
// and the scanner need not unquote it. Content is nil after it.
func (e *Event) SetText(text string) {
	e.Content = nil
	e.text, e.dec, e.decN = 0, nil, 0
	if text != "" && uint64(len(text)) < 1<<32 {
		e.text = ContentStr | ContentEsc | ContentDec
		e.dec, e.decN = unsafe.Pointer(unsafe.StringData(text)), uint32(len(text))
	}
}

// SetReuse makes the reader reuse one block for all lines (true): a trace
// it returned is valid only until the next one is read.
func (tr *TraceReader) SetReuse(reuse bool) { tr.br.reuse = reuse }
