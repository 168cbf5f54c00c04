package otelspans

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// readSpanList reads OpenInference span lists: a JSON array of spans, an
// object with "spans", an object of arrays of spans (concatenated in key
// order), one span (an object with "attributes"), one span's flat attribute
// map (wrapped as a span named after the file), or JSONL of any of these.
func readSpanList(file string, data []byte) ([]*Span, error) {
	var spans []*Span
	stem := Stem(file)
	err := jsonDocs(data, func(doc []byte, line int) error {
		v, err := decodeOrdered(doc)
		if err != nil {
			return errAt(file, max(line, 1), "not valid JSON: %s", jsonMsg(err))
		}
		spans = append(spans, spansOfValue(v, stem, line)...)
		return nil
	})
	return spans, err
}

func spansOfValue(v any, stem string, line int) []*Span {
	switch x := v.(type) {
	case []any:
		var out []*Span
		for _, e := range x {
			if o, ok := e.([]KV); ok {
				out = append(out, spanOfObject(o, line))
			}
		}
		return out
	case []KV:
		if s, ok := field(x, "spans"); ok {
			return spansOfValue(s, stem, line)
		}
		if _, ok := field(x, "attributes"); ok {
			return []*Span{spanOfObject(x, line)}
		}
		if len(x) > 0 && allSpanArrays(x) {
			var out []*Span
			for _, kv := range x {
				out = append(out, spansOfValue(kv.Value, stem, line)...)
			}
			return out
		}
		return []*Span{{Name: stem, Attrs: NewAttrs(x), Line: line}}
	}
	return nil
}

func allSpanArrays(o []KV) bool {
	for _, kv := range o {
		a, ok := kv.Value.([]any)
		if !ok {
			return false
		}
		for _, e := range a {
			if _, ok := e.([]KV); !ok {
				return false
			}
		}
	}
	return true
}

func field(o []KV, key string) (any, bool) {
	var v any
	found := false
	for _, kv := range o {
		if kv.Key == key {
			v, found = kv.Value, true
		}
	}
	return v, found
}

func fieldStr(o []KV, keys ...string) string {
	for _, k := range keys {
		path := strings.Split(k, "/")
		cur := o
		var v any
		ok := true
		for i, p := range path {
			v, ok = field(cur, p)
			if !ok {
				break
			}
			if i < len(path)-1 {
				if cur, ok = v.([]KV); !ok {
					break
				}
			}
		}
		if !ok || v == nil {
			continue
		}
		switch s := v.(type) {
		case string:
			if s != "" {
				return s
			}
		case int64:
			return strconv.FormatInt(s, 10)
		}
	}
	return ""
}

func spanOfObject(o []KV, line int) *Span {
	sp := &Span{Line: line}
	sp.Name = fieldStr(o, "name")
	sp.TraceID = NormID(fieldStr(o, "traceId", "trace_id", "spanContext/traceId", "context/trace_id"))
	sp.SpanID = NormID(fieldStr(o, "spanId", "span_id", "spanContext/spanId", "context/span_id"))
	sp.ParentID = NormID(fieldStr(o, "parentSpanId", "parent_span_id", "parent_id", "parentSpanContext/spanId"))
	sp.Start = timeOf(o, "startTimeUnixNano", "start_time", "startTime")
	sp.End = timeOf(o, "endTimeUnixNano", "end_time", "endTime")
	if a, ok := field(o, "attributes"); ok {
		sp.Attrs = NewAttrs(attrList(a))
	}
	if r, ok := field(o, "resource"); ok {
		if ro, ok := r.([]KV); ok {
			if a, ok := field(ro, "attributes"); ok {
				ra := NewAttrs(attrList(a))
				sp.Resource = &ra
			}
		}
	}
	if k, ok := field(o, "kind"); ok {
		sp.Kind = otlpKind(k)
	}
	if evs, ok := field(o, "events"); ok {
		if arr, ok := evs.([]any); ok {
			for _, e := range arr {
				eo, ok := e.([]KV)
				if !ok {
					continue
				}
				ev := SpanEvent{Name: fieldStr(eo, "name"), Time: timeOf(eo, "timeUnixNano", "timestamp", "time")}
				if a, ok := field(eo, "attributes"); ok {
					ev.Attrs = NewAttrs(attrList(a))
				}
				sp.Events = append(sp.Events, ev)
			}
		}
	}
	if k := fieldStr(o, "span_kind"); k != "" {
		sp.TopKind = k
	}
	return sp
}

// attrList turns a flat attribute object or an OTLP list of {key, value}
// into attributes.
func attrList(a any) []KV {
	switch x := a.(type) {
	case []KV:
		return x
	case []any:
		var out []KV
		for _, e := range x {
			eo, ok := e.([]KV)
			if !ok {
				continue
			}
			k, _ := field(eo, "key")
			ks, _ := k.(string)
			v, _ := field(eo, "value")
			out = append(out, KV{Key: ks, Value: unwrapOTLP(v)})
		}
		return out
	}
	return nil
}

// unwrapOTLP unwraps an OTLP JSON AnyValue as the engine does.
func unwrapOTLP(v any) any {
	o, ok := v.([]KV)
	if !ok {
		return v
	}
	for _, kv := range o {
		switch kv.Key {
		case "stringValue", "boolValue":
			return kv.Value
		case "doubleValue":
			switch n := kv.Value.(type) {
			case int64:
				return float64(n)
			case string:
				f, _ := strconv.ParseFloat(n, 64)
				return f
			}
			return kv.Value
		case "intValue":
			switch n := kv.Value.(type) {
			case string:
				i, _ := strconv.ParseInt(n, 10, 64)
				return i
			case float64:
				return int64(n)
			}
			return kv.Value
		case "arrayValue":
			ao, _ := kv.Value.([]KV)
			vals, _ := field(ao, "values")
			arr, _ := vals.([]any)
			out := make([]any, 0, len(arr))
			for _, e := range arr {
				out = append(out, unwrapOTLP(e))
			}
			return out
		case "kvlistValue":
			ao, _ := kv.Value.([]KV)
			vals, _ := field(ao, "values")
			return attrList(vals)
		case "bytesValue":
			s, _ := kv.Value.(string)
			return Bytes(s)
		}
	}
	return v
}

func otlpKind(k any) string {
	switch x := k.(type) {
	case int64:
		return [...]string{"", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"}[max(0, min(int(x), 5))]
	case string:
		return strings.ToUpper(strings.TrimPrefix(strings.TrimPrefix(x, "SPAN_KIND_"), "SpanKind."))
	}
	return ""
}

// timeOf reads a time field: Unix nanoseconds (number or string), an RFC
// 3339 string, or [seconds, nanoseconds] (the JavaScript SDK's HrTime).
func timeOf(o []KV, keys ...string) int64 {
	for _, k := range keys {
		v, ok := field(o, k)
		if !ok {
			continue
		}
		switch x := v.(type) {
		case int64:
			return x
		case float64:
			return int64(x)
		case string:
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return n
			}
			if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return t.UnixNano()
			}
			if t, err := time.Parse("2006-01-02T15:04:05.999999", x); err == nil {
				return t.UnixNano()
			}
		case []any:
			if len(x) == 2 {
				s, _ := x[0].(int64)
				n, _ := x[1].(int64)
				return s*1e9 + n
			}
		}
	}
	return 0
}

// NormID is a trace or span id as lf names it: 32 (16) hex digits in lower
// case; base64 of 16 (8) bytes decoded to hex; any other id verbatim.
func NormID(id string) string {
	if id == "" {
		return ""
	}
	if (len(id) == 32 || len(id) == 16) && isHex(id) {
		return strings.ToLower(id)
	}
	if b, err := base64.StdEncoding.DecodeString(id); err == nil && (len(b) == 16 || len(b) == 8) {
		return hex.EncodeToString(b)
	}
	return id
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// decodeOrdered decodes one JSON value keeping object key order: objects
// become []KV, arrays []any, integers int64, other numbers float64.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := orderedValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errTrailing
		}
		return nil, err
	}
	return v, nil
}

var errTrailing = &json.SyntaxError{}

// maxDepth bounds the nesting of a span file's JSON values.
const maxDepth = 1000

var errDepth = errors.New("values nested more than 1000 deep")

func orderedValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			out := []any{}
			for dec.More() {
				v, err := orderedValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			_, err := dec.Token()
			return out, err
		}
		out := []KV{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := orderedValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			ks, _ := k.(string)
			out = append(out, KV{Key: ks, Value: v})
		}
		_, err := dec.Token()
		return out, err
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err
	}
	return tok, nil
}
