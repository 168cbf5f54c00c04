package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// laxDoc is a JSON document in which the bare NaN, Infinity and -Infinity
// tokens Python writes (Inspect, lm-eval) have been turned into the strings
// "NaN", "Infinity" and "-Infinity", which encoding/json reads and num treats
// as non-finite. fixes maps offsets back to the original text for messages.
type laxDoc struct {
	orig  []byte
	out   []byte
	fixes []laxFix
}

type laxFix struct {
	outOff  int // offset of the replacement in out
	origOff int // offset of the token in orig
	shift   int // len(replacement) - len(token)
	token   string
}

var (
	tokNaN    = []byte("NaN")
	tokInf    = []byte("Infinity")
	tokNegInf = []byte("-Infinity")
)

// lax rewrites the bare non-finite tokens of b, outside strings.
func lax(b []byte) *laxDoc {
	d := &laxDoc{orig: b, out: b}
	if !bytes.Contains(b, tokNaN) && !bytes.Contains(b, tokInf) {
		return d
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); i++ {
		c := b[i]
		var tok []byte
		switch {
		case c == '"':
			// a string is copied whole (an unclosed one to the end)
			e := jsonlex.QuoteEnd(b, i)
			if e < 0 {
				e = len(b)
			}
			out = append(out, b[i:e]...)
			i = e - 1
			continue
		case c == 'N' && bytes.HasPrefix(b[i:], tokNaN):
			tok = tokNaN
		case c == 'I' && bytes.HasPrefix(b[i:], tokInf):
			tok = tokInf
		case c == '-' && bytes.HasPrefix(b[i:], tokNegInf):
			tok = tokNegInf
		}
		if tok == nil {
			out = append(out, c)
			continue
		}
		d.fixes = append(d.fixes, laxFix{outOff: len(out), origOff: i, shift: 2, token: string(tok)})
		out = append(out, '"')
		out = append(out, tok...)
		out = append(out, '"')
		i += len(tok) - 1
	}
	d.out = out
	return d
}

// origOffset maps an offset in out back to orig.
func (d *laxDoc) origOffset(off int) int {
	i := sort.Search(len(d.fixes), func(i int) bool { return d.fixes[i].outOff >= off })
	return off - 2*i
}

// lineCol gives the 1-based line and column of an offset of orig.
func lineCol(b []byte, off int) (int, int) {
	if off > len(b) {
		off = len(b)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(b[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// decode unmarshals the document into v; a syntax or type error becomes a
// located error of src.
func (d *laxDoc) decode(src *source, v any, what string) error {
	err := json.Unmarshal(d.out, v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset is just after the offending byte
		off := d.origOffset(max(int(se.Offset)-1, 0))
		if int(se.Offset) >= len(d.out) {
			off = len(d.orig) // the end: where the rest is missing
		}
		l, c := lineCol(d.orig, off)
		if int(se.Offset) >= len(d.out) {
			return src.errorf(l, c, "", "not a complete %s file (cut short?): %v", what, se)
		}
		return src.errorf(l, c, "", "not a valid %s file: %v", what, se)
	case errors.As(err, &te):
		off := d.origOffset(int(te.Offset))
		l, c := lineCol(d.orig, off)
		ptr := ""
		if te.Field != "" {
			ptr = "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return src.errorf(l, c, ptr, "not a valid %s file: %s where %s was expected", what, jsonValueKind(te.Value), jsonKind(te.Type))
	}
	return src.errorf(0, 0, "", "not a valid %s file: %v", what, err)
}

// nonFiniteWarnings reports each bare token lax rewrote, at its place.
func (d *laxDoc) nonFiniteWarnings(src *source) {
	for _, f := range d.fixes {
		l, c := lineCol(d.orig, f.origOff)
		src.warnf(l, c, "", "bare %s is not JSON; read as a non-finite value", f.token)
	}
}

// num reads a metric value. ok is false, with the reason, for what a metric
// cannot hold: null, strings ("N/A"), booleans, objects and non-finite values.
func num(raw json.RawMessage) (float64, string, bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return 0, "null value", false
	}
	switch t[0] {
	case '"':
		var s string
		if json.Unmarshal(t, &s) != nil {
			return 0, "unreadable string", false
		}
		switch strings.ToLower(s) {
		case "nan", "infinity", "-infinity", "inf", "-inf":
			return 0, "non-finite value " + s, false
		}
		return 0, "non-numeric value " + strconv.Quote(s), false
	case 't', 'f':
		return 0, "boolean value " + string(t), false
	case '{', '[':
		return 0, "not a number", false
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, "non-finite value " + string(t), false
	}
	return f, "", true
}

// ptrEscape escapes a JSON pointer token.
func ptrEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
