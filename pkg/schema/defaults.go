package schema

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ApplyDefaults fills in, in v (a document's values: maps, lists, scalars),
// every property that schemas/<name>.schema.json gives a `default:` and v
// leaves out, wherever the schema describes an object present in v: the
// defaults of a kind are written once, in its schema. It follows $ref,
// allOf, if/then/else (by validating the `if`), properties and items; under
// oneOf and anyOf it fills nothing, the branch being a guess. Call it after
// validation: on values with problems it fills what it can.
func ApplyDefaults(name string, v any) error {
	s, err := Compile(name)
	if err != nil {
		return err
	}
	fill(s, v, 0)
	return nil
}

func fill(s *jsonschema.Schema, v any, depth int) {
	if s == nil || depth > 64 {
		return
	}
	fill(s.Ref, v, depth+1)
	for _, a := range s.AllOf {
		fill(a, v, depth+1)
	}
	if s.If != nil {
		if s.If.Validate(v) == nil {
			fill(s.Then, v, depth+1)
		} else {
			fill(s.Else, v, depth+1)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for name, ps := range s.Properties {
			if _, ok := x[name]; !ok {
				if d, ok := defaultOf(ps); ok {
					x[name] = plain(d)
				}
			}
			if pv, ok := x[name]; ok {
				fill(ps, pv, depth+1)
			}
		}
	case []any:
		items := s.Items2020
		if items == nil {
			items, _ = s.Items.(*jsonschema.Schema)
		}
		if items != nil {
			for _, e := range x {
				fill(items, e, depth+1)
			}
		}
	}
}

// defaultOf returns the default of a property's schema, following $ref.
func defaultOf(s *jsonschema.Schema) (any, bool) {
	for i := 0; s != nil && i < 16; i, s = i+1, s.Ref {
		if s.Default != nil {
			return s.Default, true
		}
	}
	return nil, false
}

// plain copies a schema value into the types a document holds (int64 or
// float64 for numbers), so that a default is not shared between documents.
func plain(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = plain(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = plain(e)
		}
		return l
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
