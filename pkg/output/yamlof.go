package output

import (
	"bytes"
	"encoding/json"

	"github.com/lfcli/lf/pkg/yamlsrc"
)

// YAMLOf renders any JSON-encodable value (a result struct, a list of them)
// as YAML with the field order of its JSON encoding sorted by key.
func YAMLOf(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return yamlsrc.Encode(fromJSON(x), yamlsrc.EncodeStyle{}), nil
}

func fromJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = fromJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = fromJSON(e)
		}
	}
	return v
}
