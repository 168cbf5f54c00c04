package output

import (
	"encoding/json"
	"io"
)

// JSON writes v as indented JSON followed by a newline (Fields streamed).
func JSON(w io.Writer, v any) error {
	if f, ok := v.(Fields); ok {
		return streamFields(w, f)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// JSONLine writes v as one compact JSON line (for JSONL output).
func JSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
