package kind

import (
	"encoding/json"

	"github.com/lfcli/lf/pkg/schema"
)

// DecodeCopy decodes one entry of the list named list of the files of
// schemaName (value, as read from a file or a stored body) with the
// schema's defaults filled in a copy: value stays as written, so that what
// an entity kind stores and exports keeps the file's words while the Go
// value has every default. With no list, value is a whole document.
func DecodeCopy[T any](schemaName, list string, value any) (T, error) {
	var v T
	b, err := json.Marshal(value)
	if err != nil {
		return v, err
	}
	var cp any
	if err := json.Unmarshal(b, &cp); err != nil {
		return v, err
	}
	if schemaName != "" {
		doc := any(map[string]any{list: []any{cp}})
		if list == "" {
			doc = cp
		}
		if err := schema.ApplyDefaults(schemaName, doc); err != nil {
			return v, err
		}
	}
	if b, err = json.Marshal(cp); err != nil {
		return v, err
	}
	err = json.Unmarshal(b, &v)
	return v, err
}
