package agentrisk

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
)

// maxEventDiags caps the problems reported for one file, so that feeding the
// wrong file does not print millions of lines.
const maxEventDiags = 100

// maxLine is the longest JSONL line accepted (1 MiB).
const maxLine = 1 << 20

// rawEvent mirrors Event with loose types, so that every field problem can be
// reported with its name.
type rawEvent struct {
	Timestamp      *string  `json:"timestamp"`
	TenantID       *string  `json:"tenant_id"`
	AgentID        *string  `json:"agent_id"`
	AgentName      string   `json:"agent_name"`
	SessionID      string   `json:"session_id"`
	Method         string   `json:"method"`
	Tool           string   `json:"tool"`
	Resource       string   `json:"resource"`
	HighImpact     bool     `json:"high_impact"`
	Decision       string   `json:"decision"`
	Rule           string   `json:"rule"`
	InjectionScore *float64 `json:"injection_score"`
	RequestID      string   `json:"request_id"`
}

// parseEvents reads JSONL (or one JSON array) from r.
func parseEvents(file string, r io.Reader) ([]Event, diag.List) {
	var out []Event
	diags := scanEvents(file, r, false, func(ev *Event) error {
		out = append(out, *ev)
		return nil
	})
	if diags.HasErrors() {
		return nil, diags
	}
	return out, diags
}

// scanEvents streams the events of r to fn, in order, while there is no
// error; it returns every problem found (reading on after the first, so
// that all bad lines are reported). An error from fn ends the scan and is
// returned as a diagnostic of its line. With volatile, the event given to fn
// is valid only during the call (see fastDecoder): fn must copy what it keeps.
func scanEvents(file string, r io.Reader, volatile bool, fn func(*Event) error) diag.List {
	br := bufio.NewReaderSize(r, 64<<10)
	// Tell a JSON array from JSONL by the first non-blank byte.
	all, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return diag.List{{File: file, Msg: "cannot read events: " + err.Error()}}
	}
	if first := firstNonSpace(all); first == '[' {
		data, err := io.ReadAll(br)
		if err != nil {
			return diag.List{{File: file, Msg: "cannot read events: " + err.Error()}}
		}
		return parseArray(file, data, fn)
	}
	return parseLines(file, br, newFastDecoder(volatile), fn)
}

func firstNonSpace(b []byte) byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

func parseLines(file string, br *bufio.Reader, fast *fastDecoder, fn func(*Event) error) diag.List {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 256<<10), maxLine)
	var (
		diags diag.List
		more  int
		line  int
		ev    Event
	)
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if fast.decode(text, &ev) {
			if !diags.HasErrors() {
				if err := fn(&ev); err != nil {
					return append(diags, fnDiag(file, line, "", err))
				}
			}
			continue
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		var probs diag.List
		ev, probs = decodeEvent(text)
		if len(probs) > 0 {
			for _, p := range probs {
				if len(diags) >= maxEventDiags {
					more++
					continue
				}
				p.File, p.Line = file, line
				diags = append(diags, p)
			}
			continue
		}
		if !diags.HasErrors() {
			if err := fn(&ev); err != nil {
				return append(diags, fnDiag(file, line, "", err))
			}
		}
	}
	if err := sc.Err(); err != nil {
		msg := "cannot read events: " + err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("line longer than %d bytes; events are one JSON object per line", maxLine)
		}
		diags = append(diags, diag.Diagnostic{File: file, Line: line + 1, Msg: msg})
	}
	if more > 0 {
		diags = append(diags, diag.Diagnostic{File: file, Msg: fmt.Sprintf("and %d more problems not shown", more)})
	}
	return diags
}

func parseArray(file string, data []byte, fn func(*Event) error) diag.List {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	lineAt := func(off int64) int {
		if off > int64(len(data)) {
			off = int64(len(data))
		}
		return bytes.Count(data[:off], []byte("\n")) + 1
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return diag.List{{File: file, Line: 1, Msg: "invalid JSON: " + err.Error()}}
	}
	var diags diag.List
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(diags, diag.Diagnostic{File: file, Line: lineAt(dec.InputOffset()), Pointer: fmt.Sprintf("/%d", i), Msg: "invalid JSON: " + err.Error()})
		}
		// InputOffset before Decode points at the separator; skip to the value.
		rest := data[start:]
		skip := bytes.IndexAny(rest, "{[\"0123456789tfn-")
		line := lineAt(start + int64(max(skip, 0)))
		ev, probs := decodeEvent(raw)
		for _, p := range probs {
			if len(diags) < maxEventDiags {
				p.File, p.Line = file, line
				p.Pointer = fmt.Sprintf("/%d", i) + p.Pointer
				diags = append(diags, p)
			}
		}
		if len(probs) == 0 && len(diags) == 0 {
			if err := fn(&ev); err != nil {
				return append(diags, fnDiag(file, line, fmt.Sprintf("/%d", i), err))
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return append(diags, diag.Diagnostic{File: file, Line: lineAt(dec.InputOffset()), Msg: "invalid JSON: " + err.Error()})
	}
	// Whatever follows the array would otherwise be dropped silently.
	end := dec.InputOffset()
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		at := end + int64(len(data[end:])-len(rest))
		diags = append(diags, diag.Diagnostic{
			File: file, Line: lineAt(at), Col: colAt(data, at),
			Msg: "data after the JSON array: events are one JSON array, or JSONL (one event object per line)",
		})
	}
	return diags
}

// fnDiag is the diagnostic of an error of scanEvents' fn for the event at
// file:line (ptr: its index in an array), at the field the error names.
func fnDiag(file string, line int, ptr string, err error) diag.Diagnostic {
	var at interface{ EventPointer() string }
	if errors.As(err, &at) {
		ptr += at.EventPointer()
	}
	return diag.Diagnostic{File: file, Line: line, Pointer: ptr, Msg: err.Error()}
}

// colAt is the 1-based column (in bytes) of offset off in data.
func colAt(data []byte, off int64) int {
	return int(off) - bytes.LastIndexByte(data[:off], '\n')
}

// decodeEvent decodes and checks one event; problems carry a pointer and a
// message only.
func decodeEvent(text []byte) (Event, diag.List) {
	var r rawEvent
	if err := json.Unmarshal(text, &r); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return Event{}, diag.List{{Pointer: "/" + strings.ReplaceAll(te.Field, ".", "/"), Msg: fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value)}}
		case errors.As(err, &te):
			return Event{}, diag.List{{Msg: fmt.Sprintf("expected one JSON object per line, got JSON %s", te.Value)}}
		case errors.As(err, &se):
			return Event{}, diag.List{{Msg: fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)}}
		default:
			return Event{}, diag.List{{Msg: "invalid JSON: " + err.Error()}}
		}
	}
	var probs diag.List
	bad := func(ptr, format string, args ...any) {
		probs = append(probs, diag.Diagnostic{Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
	}
	ev := Event{
		AgentName: r.AgentName, SessionID: r.SessionID, Method: r.Method, Tool: r.Tool,
		Resource: r.Resource, HighImpact: r.HighImpact, Decision: r.Decision, Rule: r.Rule,
		InjectionScore: r.InjectionScore, RequestID: r.RequestID,
	}
	if r.Timestamp == nil {
		bad("/timestamp", "missing timestamp (RFC 3339, e.g. 2026-04-16T14:23:00Z)")
	} else if t, err := time.Parse(time.RFC3339Nano, *r.Timestamp); err != nil {
		bad("/timestamp", "timestamp %q is not RFC 3339 (e.g. 2026-04-16T14:23:00Z)", *r.Timestamp)
	} else {
		ev.Timestamp = t.UTC()
	}
	if r.TenantID == nil || strings.TrimSpace(*r.TenantID) == "" {
		bad("/tenant_id", "missing tenant_id")
	} else if err := kind.CheckID("tenant_id", *r.TenantID); err != nil {
		bad("/tenant_id", "%v", err)
	} else {
		ev.TenantID = *r.TenantID
	}
	if r.AgentID == nil || strings.TrimSpace(*r.AgentID) == "" {
		bad("/agent_id", "missing agent_id")
	} else if err := kind.CheckID("agent_id", *r.AgentID); err != nil {
		bad("/agent_id", "%v", err)
	} else {
		ev.AgentID = *r.AgentID
	}
	switch r.Decision {
	case "", "allow", "deny":
	default:
		bad("/decision", "decision must be allow or deny, got %q", r.Decision)
	}
	if s := r.InjectionScore; s != nil && (math.IsNaN(*s) || *s < 0 || *s > 1) {
		bad("/injection_score", "injection_score must lie within 0..1, got %g", *s)
	}
	if ev.Decision == "" {
		ev.Decision = "allow"
	}
	return ev, probs
}
