package project

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// ErrBaselineBlind is returned by BaselineAt when no run was created at or
// before the baseline's moment: there is nothing to compare against.
var ErrBaselineBlind = errors.New("no evaluation run was created at or before the baseline time: nothing to compare against")

// BaselineAt is the overview of f as of at, as a regression baseline.
func BaselineAt(ctx context.Context, st *store.Store, f OverviewFilter, at time.Time) (*risk.Baseline, error) {
	saw, err := RunsAt(ctx, st, at)
	if err != nil {
		return nil, err
	}
	if !saw {
		return nil, ErrBaselineBlind
	}
	f.At = at
	res, err := Overview(ctx, st, f)
	if err != nil {
		return nil, err
	}
	b := &risk.Baseline{From: "as of " + at.UTC().Format(time.RFC3339Nano), Entries: map[string]risk.BaselineEntry{}}
	for _, r := range res {
		b.Entries[r.Key] = risk.BaselineEntry{Level: r.Level, Score: r.Score}
	}
	return b, nil
}

// baselineItem is one scorer of an earlier `lf overview risk-scorers -o json`.
type baselineItem struct {
	Key   *string  `json:"key"`
	Level *string  `json:"level"`
	Score *float64 `json:"score"`
}

// ReadBaseline reads an earlier `lf overview risk-scorers -o json` from
// path: its list of scorers, or an object with "app" and "risk_scorers"
// (the list). A file that does not parse, a scorer without key or with an
// unknown level, a key twice, or an object naming another app than app is
// an ExitInvalid error located by line, column and JSON pointer.
func ReadBaseline(path, app string) (*risk.Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, diag.Usagef("--baseline %s: %v", path, err)
	}
	r := baselineReader{
		path: path, data: data, dec: json.NewDecoder(bytes.NewReader(data)),
		b: &risk.Baseline{From: path, Entries: map[string]risk.BaselineEntry{}},
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, r.fail(0, "", "the file is empty: want the JSON of `lf overview risk-scorers -o json`")
	}
	if err := r.top(app); err != nil {
		return nil, err
	}
	return r.b, nil
}

type baselineReader struct {
	path string
	data []byte
	dec  *json.Decoder
	b    *risk.Baseline
}

// fail is an ExitInvalid error at byte offset off of the file.
func (r *baselineReader) fail(off int64, ptr, format string, args ...any) error {
	line, col := 1, 1
	for _, c := range r.data[:min(int(off), len(r.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return diag.Invalid(diag.List{{File: r.path, Line: line, Col: col, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}})
}

// start skips the white space and separator after off: where the next
// value begins.
func (r *baselineReader) start(off int64) int64 {
	for int(off) < len(r.data) && bytes.IndexByte([]byte(" \t\r\n,:"), r.data[off]) >= 0 {
		off++
	}
	return off
}

// jsonErr locates a decoder error.
func (r *baselineReader) jsonErr(at int64, ptr string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return r.fail(syn.Offset, ptr, "not JSON: %v", syn)
	case errors.As(err, &typ):
		if typ.Field != "" {
			ptr += "/" + typ.Field
		}
		return r.fail(typ.Offset, ptr, "want a %s, got a JSON %s", typ.Type.Kind(), typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return r.fail(int64(len(r.data)), ptr, "the JSON ends too early")
	}
	return r.fail(at, ptr, "%v", err)
}

// top reads the document: a list, or an object holding one.
func (r *baselineReader) top(app string) error {
	tok, err := r.dec.Token()
	if err != nil {
		return r.jsonErr(0, "", err)
	}
	switch tok {
	case json.Delim('['):
		err = r.list("")
	case json.Delim('{'):
		err = r.object(app)
	default:
		return r.fail(r.dec.InputOffset(), "", "want the list of risk scorers of `lf overview risk-scorers -o json`, got %v", tok)
	}
	if err != nil {
		return err
	}
	if off := r.dec.InputOffset(); len(bytes.TrimSpace(r.data[off:])) > 0 {
		return r.fail(off, "", "unexpected data after the JSON document")
	}
	return nil
}

func (r *baselineReader) object(app string) error {
	sawList := false
	for r.dec.More() {
		off := r.start(r.dec.InputOffset())
		tok, err := r.dec.Token()
		if err != nil {
			return r.jsonErr(off, "", err)
		}
		key, _ := tok.(string)
		ptr := "/" + key
		switch key {
		case "app":
			var got string
			if err := r.dec.Decode(&got); err != nil {
				return r.jsonErr(off, ptr, err)
			}
			if got != app {
				return r.fail(off, ptr, "the baseline is of app %q, not of app %q: compare an app with its own earlier overview", got, app)
			}
		case "risk_scorers":
			if tok, err := r.dec.Token(); err != nil || tok != json.Delim('[') {
				return r.fail(off, ptr, "want the list of risk scorers")
			}
			if err := r.list(ptr); err != nil {
				return err
			}
			sawList = true
		default:
			var skip json.RawMessage
			if err := r.dec.Decode(&skip); err != nil {
				return r.jsonErr(off, ptr, err)
			}
		}
	}
	if _, err := r.dec.Token(); err != nil {
		return r.jsonErr(r.dec.InputOffset(), "", err)
	}
	if !sawList {
		return r.fail(0, "", "no \"risk_scorers\" list: want the JSON of `lf overview risk-scorers -o json`")
	}
	return nil
}

// list reads the scorers after the list's opening bracket, and the
// closing one.
func (r *baselineReader) list(ptr string) error {
	for i := 0; r.dec.More(); i++ {
		off := r.start(r.dec.InputOffset())
		iptr := ptr + "/" + strconv.Itoa(i)
		var it baselineItem
		if err := r.dec.Decode(&it); err != nil {
			return r.jsonErr(off, iptr, err)
		}
		switch {
		case it.Key == nil || *it.Key == "":
			return r.fail(off, iptr+"/key", "a risk scorer without key")
		case it.Level == nil:
			return r.fail(off, iptr+"/level", "risk scorer %q has no level", *it.Key)
		case !knownLevel(risk.Level(*it.Level)):
			return r.fail(off, iptr+"/level", "unknown level %q: want low, medium, high, critical, no_data or error", *it.Level)
		}
		if _, dup := r.b.Entries[*it.Key]; dup {
			return r.fail(off, iptr+"/key", "risk scorer %q is listed twice", *it.Key)
		}
		r.b.Entries[*it.Key] = risk.BaselineEntry{Level: risk.Level(*it.Level), Score: it.Score}
	}
	if _, err := r.dec.Token(); err != nil {
		return r.jsonErr(r.dec.InputOffset(), ptr, err)
	}
	return nil
}

func knownLevel(l risk.Level) bool {
	return l.Rank() > 0 || l == risk.NoData || l == risk.Failed
}
