package output

import (
	"encoding/json"
	"io"

	"github.com/goccy/go-yaml"
)

type yamlWriter struct{ w io.Writer }

func newYAMLWriter(w io.Writer, _ Options) Writer { return yamlWriter{w} }

// Write encodes v's data as YAML keeping the JSON key order (so Fields keep
// their documented order).
func (y yamlWriter) Write(v any) error {
	b, err := json.Marshal(data(v))
	if err != nil {
		return err
	}
	out, err := yaml.JSONToYAML(b)
	if err != nil {
		return err
	}
	_, err = y.w.Write(out)
	return err
}

func (y yamlWriter) Close() error { return nil }
