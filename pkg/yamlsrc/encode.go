package yamlsrc

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// EncodeStyle controls the canonical YAML writer.
type EncodeStyle struct {
	// Order returns the keys of the mapping at pointer in the order to write
	// them. Nil writes keys in sorted order.
	Order func(pointer string, keys []string) []string
	// Comments are written back on the nodes they belong to, keyed by pointer.
	Comments map[string]Comment
}

// Encode renders v as canonical YAML: two-space indentation, block mappings,
// scalar lists in flow style when short, strings plain when that is
// unambiguous, and comments back where they were. The output parses back (with
// yamlsrc) to the same values and comments, so writing it again gives the same
// bytes.
func Encode(v any, style EncodeStyle) []byte {
	e := &yamlEmitter{style: style}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.buf.WriteString("{}\n")
		} else {
			e.mapping(x, "", 0)
		}
	case []any:
		if len(x) == 0 {
			e.buf.WriteString("[]\n")
		} else {
			e.sequence(x, "", 0)
		}
	default:
		e.buf.WriteString(scalar(v))
		e.buf.WriteByte('\n')
	}
	return e.buf.Bytes()
}

type yamlEmitter struct {
	buf   bytes.Buffer
	style EncodeStyle
}

func (e *yamlEmitter) comment(ptr string) Comment {
	if e.style.Comments == nil {
		return Comment{}
	}
	return e.style.Comments[ptr]
}

func (e *yamlEmitter) head(ptr string, indent int) {
	for _, h := range e.comment(ptr).Head {
		e.pad(indent)
		if h == "" {
			e.buf.WriteString("#\n")
			continue
		}
		e.buf.WriteString("# ")
		e.buf.WriteString(h)
		e.buf.WriteByte('\n')
	}
}

func (e *yamlEmitter) lineEnd(ptr string) {
	if c := e.comment(ptr).Line; c != "" {
		e.buf.WriteString(" # ")
		e.buf.WriteString(c)
	}
	e.buf.WriteByte('\n')
}

func (e *yamlEmitter) pad(n int) {
	for i := 0; i < n; i++ {
		e.buf.WriteByte(' ')
	}
}

func (e *yamlEmitter) keys(ptr string, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if e.style.Order != nil {
		return e.style.Order(ptr, keys)
	}
	return keys
}

// mapping writes the entries of m, each on its own line at indent. When
// firstInline is set the caller has already written "- " for the first key.
func (e *yamlEmitter) mapping(m map[string]any, ptr string, indent int) {
	e.entries(m, ptr, indent, false)
}

func (e *yamlEmitter) entries(m map[string]any, ptr string, indent int, firstInline bool) {
	for i, k := range e.keys(ptr, m) {
		p := ptr + "/" + EscapePointer(k)
		if !(firstInline && i == 0) {
			e.head(p, indent)
			e.pad(indent)
		}
		e.buf.WriteString(key(k))
		e.buf.WriteByte(':')
		e.value(m[k], p, indent)
	}
}

// value writes what follows "key:" or "- ": a scalar or flow collection on
// the same line, or a block collection on the next lines.
func (e *yamlEmitter) value(v any, ptr string, indent int) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			e.buf.WriteString(" {}")
			e.lineEnd(ptr)
			return
		}
		e.lineEnd(ptr)
		e.mapping(x, ptr, indent+2)
	case []any:
		if len(x) == 0 {
			e.buf.WriteString(" []")
			e.lineEnd(ptr)
			return
		}
		if flow, ok := e.flowList(x, ptr); ok {
			e.buf.WriteByte(' ')
			e.buf.WriteString(flow)
			e.lineEnd(ptr)
			return
		}
		e.lineEnd(ptr)
		e.sequence(x, ptr, indent+2)
	case string:
		if strings.Contains(x, "\n") && blockSafe(x) {
			e.buf.WriteString(" |")
			switch {
			case !strings.HasSuffix(x, "\n"):
				e.buf.WriteByte('-')
			case strings.HasSuffix(x, "\n\n"):
				e.buf.WriteByte('+')
			}
			e.lineEnd(ptr)
			body := x
			if strings.HasSuffix(body, "\n") {
				body = body[:len(body)-1]
			}
			for _, line := range strings.Split(body, "\n") {
				if line != "" {
					e.pad(indent + 2)
					e.buf.WriteString(line)
				}
				e.buf.WriteByte('\n')
			}
			return
		}
		e.buf.WriteByte(' ')
		e.buf.WriteString(scalar(x))
		e.lineEnd(ptr)
	default:
		e.buf.WriteByte(' ')
		e.buf.WriteString(scalar(x))
		e.lineEnd(ptr)
	}
}

func (e *yamlEmitter) sequence(items []any, ptr string, indent int) {
	for i, it := range items {
		p := ptr + "/" + strconv.Itoa(i)
		e.head(p, indent)
		e.pad(indent)
		e.buf.WriteByte('-')
		switch x := it.(type) {
		case map[string]any:
			if len(x) == 0 {
				e.buf.WriteString(" {}")
				e.lineEnd(p)
				continue
			}
			e.buf.WriteByte(' ')
			e.entries(x, p, indent+2, true)
		default:
			e.value(it, p, indent)
		}
	}
}

// flowList renders a list of scalars as [a, b] when it is short and none of
// its items carries a comment.
func (e *yamlEmitter) flowList(items []any, ptr string) (string, bool) {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		switch it.(type) {
		case map[string]any, []any:
			return "", false
		case string:
			if strings.Contains(it.(string), "\n") {
				return "", false
			}
		}
		c := e.comment(ptr + "/" + strconv.Itoa(i))
		if len(c.Head) > 0 || c.Line != "" {
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(flowScalar(it))
	}
	b.WriteByte(']')
	if b.Len() > 80 {
		return "", false
	}
	return b.String(), true
}

// flowScalar writes a scalar inside [...], where commas and brackets end
// a plain scalar.
func flowScalar(v any) string {
	if s, ok := v.(string); ok && plainSafe(s) && !strings.ContainsAny(s, ",[]{}") {
		return s
	}
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return scalar(v)
}

func key(k string) string {
	if plainSafe(k) {
		return k
	}
	return quote(k)
}

func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return FormatFloat(x)
	case string:
		if plainSafe(x) {
			return x
		}
		return quote(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// FormatFloat writes a float so that it reads back as a float: 4.0, 0.5, 1e-09.
func FormatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	a := math.Abs(f)
	if a != 0 && (a < 1e-6 || a >= 1e15) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		if m, exp, ok := strings.Cut(s, "e"); ok && !strings.Contains(m, ".") {
			s = m + ".0e" + exp
		}
		return s
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

var reserved = map[string]bool{
	"null": true, "~": true, "true": true, "false": true, "yes": true, "no": true,
	"on": true, "off": true, "y": true, "n": true,
}

// plainSafe reports whether s can be written without quotes and read back
// as the same string, in block and in flow context alike.
func plainSafe(s string) bool {
	if s == "" || reserved[strings.ToLower(s)] {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	switch s[0] {
	case '-', '?', ':', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '.', '+', '=', '<', '~', ',', '[', ']', '{', '}':
		return false
	}
	if s[0] >= '0' && s[0] <= '9' {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return false
		}
	}
	return true
}

// blockSafe reports whether a multi-line string can be written as a literal
// block scalar and read back unchanged.
func blockSafe(s string) bool {
	if s[0] == ' ' || s[0] == '\n' || strings.ContainsAny(s, "\r\t") {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasSuffix(line, " ") {
			return false
		}
		for _, r := range line {
			if r < 0x20 || r == 0x7f || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
				return false
			}
		}
	}
	return !strings.HasSuffix(s, "\n\n\n")
}
