package schema

import (
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Keys is the key tree a schema declares: for each object of a document
// that the schema gives `properties`, the set of those keys, by the
// object's JSON pointer ("" for the top, "/scoring"; "/*" stands for every
// item of a list: "/custom_detectors/*"). An object whose schema names no
// properties (any content, or a map such as `level_overrides`) is absent.
type Keys map[string]map[string]bool

var (
	keysMu sync.Mutex
	keys   = map[string]Keys{}
)

// KnownKeys returns the key tree of schemas/<name>.schema.json, so that a
// kind warning about keys it does not define reads them from its schema
// instead of repeating them. It follows $ref and allOf; under oneOf and
// anyOf it records nothing, the branch being a guess.
func KnownKeys(name string) (Keys, error) {
	keysMu.Lock()
	defer keysMu.Unlock()
	if k, ok := keys[name]; ok {
		return k, nil
	}
	s, err := Compile(name)
	if err != nil {
		return nil, err
	}
	k := Keys{}
	collectKeys(k, s, "", 0)
	keys[name] = k
	return k, nil
}

func collectKeys(k Keys, s *jsonschema.Schema, ptr string, depth int) {
	if s == nil || depth > 64 {
		return
	}
	collectKeys(k, s.Ref, ptr, depth+1)
	for _, a := range s.AllOf {
		collectKeys(k, a, ptr, depth+1)
	}
	if len(s.Properties) > 0 {
		if k[ptr] == nil {
			k[ptr] = map[string]bool{}
		}
		for name, ps := range s.Properties {
			k[ptr][name] = true
			collectKeys(k, ps, ptr+"/"+yamlsrc.EscapePointer(name), depth+1)
		}
	}
	items := s.Items2020
	if items == nil {
		items, _ = s.Items.(*jsonschema.Schema)
	}
	collectKeys(k, items, ptr+"/*", depth+1)
}
