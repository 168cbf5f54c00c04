package output

import (
	"bufio"
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
	rv := reflect.ValueOf(v)
	if v == nil || rv.Kind() != reflect.Slice || rv.Len() == 0 || rv.Type().Elem().Kind() == reflect.Uint8 || rv.Type().Implements(marshalerType) {
		b, err := json.MarshalIndent(v, prefix, "  ")
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	}
	inner := prefix + "  "
	bw.WriteString("[\n")
	for j := 0; j < rv.Len(); j++ {
		// Through a pointer, as json.Marshal reaches a slice's elements
		// (so that a pointer receiver's MarshalJSON is used alike).
		b, err := json.MarshalIndent(rv.Index(j).Addr().Interface(), inner, "  ")
		if err != nil {
			return err
		}
		bw.WriteString(inner)
		bw.Write(b)
		if j < rv.Len()-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString(prefix)
	_, err := bw.WriteString("]")
	return err
}

var marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
