package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
)

// streamFields writes f as the JSON encoder writes it (indented by two
// spaces, the values marshalled as json.Marshal does), one field at a
// time and, for a slice value, one element at a time: a large report
// (every scorer's history is hundreds of megabytes) is never held as one
// buffer, nor marshalled, compacted and indented as a whole.
func streamFields(w io.Writer, f Fields) error {
	if len(f) == 0 {
		_, err := io.WriteString(w, "{}\n")
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("{\n")
	for i, kv := range f {
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return err
		}
		bw.WriteString("  ")
		bw.Write(k)
		bw.WriteString(": ")
		if err := streamValue(bw, kv.Value, "  "); err != nil {
			return err
		}
		if i < len(f)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// streamValue writes v indented as at prefix; a non-empty slice (not of
// bytes, not a json.Marshaler) element by element.
func streamValue(bw *bufio.Writer, v any, prefix string) error {
	var ind indenter
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() != reflect.Slice || rv.Len() == 0 || rv.Type().Elem().Kind() == reflect.Uint8 || rv.Type().Implements(marshalerType) {
		return ind.write(bw, v, prefix)
	}
	inner := prefix + "  "
	bw.WriteString("[\n")
	for j := 0; j < rv.Len(); j++ {
		bw.WriteString(inner)
		// Through a pointer, as json.Marshal reaches a slice's elements
		// (so that a pointer receiver's MarshalJSON is used alike).
		if err := ind.write(bw, rv.Index(j).Addr().Interface(), inner); err != nil {
			return err
		}
		if j < rv.Len()-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString(prefix)
	_, err := bw.WriteString("]")
	return err
}

// indenter writes values as json.MarshalIndent(v, prefix, "  ") does,
// reusing its buffers from one value to the next: it marshals with an
// encoder (HTML escaped, as json.Marshal) and indents the compact,
// already valid text in one pass (json.MarshalIndent validates it again
// byte by byte, which was most of the time of a large report).
type indenter struct {
	compact bytes.Buffer
	enc     *json.Encoder
	out     []byte
}

func (ind *indenter) write(bw *bufio.Writer, v any, prefix string) error {
	if ind.enc == nil {
		ind.enc = json.NewEncoder(&ind.compact)
	}
	ind.compact.Reset()
	if err := ind.enc.Encode(v); err != nil {
		return err
	}
	src := bytes.TrimSuffix(ind.compact.Bytes(), []byte("\n"))
	ind.out = appendIndented(ind.out[:0], src, prefix, "  ")
	_, err := bw.Write(ind.out)
	return err
}

// appendIndented appends src, valid JSON, indented as json.Indent indents
// it: a new line (prefix, then indent per level) after an opening bracket
// and after each comma, before a closing bracket, ": " between a key and
// its value, and {} and [] for empty objects and arrays. Whitespace outside
// strings is dropped; strings are copied as they are.
func appendIndented(dst, src []byte, prefix, indent string) []byte {
	line := []byte("\n" + prefix) // a new line and its indent, grown as needed
	newline := func(depth int) {
		for n := 1 + len(prefix) + depth*len(indent); len(line) < n; {
			line = append(line, indent...)
		}
		dst = append(dst, line[:1+len(prefix)+depth*len(indent)]...)
	}
	depth := 0
	open := false // an opening bracket waits for its first element
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline(depth)
		}
		switch c {
		case '"':
			// Copy the string through its closing quote, escapes included.
			j := i + 1
			for {
				k := bytes.IndexByte(src[j:], '"')
				if k < 0 {
					j = len(src)
					break
				}
				j += k
				if !escaped(src[i+1 : j]) {
					break
				}
				j++
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline(depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// escaped tells whether the quote after s is escaped: s ends in an odd
// number of backslashes.
func escaped(s []byte) bool {
	n := 0
	for n < len(s) && s[len(s)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
