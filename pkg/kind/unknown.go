package kind

import (
	"sort"
	"strconv"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// UnknownKeys warns, for a kind whose schema lets unknown keys through
// (configs shared with other tools), about every key of the value at ptr
// that schemas/<name>.schema.json does not name: "unknown key "k" is
// ignored", located at the key. The keys known are the schema's own
// (schema.KnownKeys), so they are written once; objects the schema gives
// no properties (any content, maps) are not looked into.
func UnknownKeys(name string, doc *yamlsrc.Doc, ptr string) diag.List {
	keys, err := schema.KnownKeys(name)
	if err != nil {
		return diag.List{{File: doc.File, Msg: "internal: " + err.Error()}}
	}
	v, _ := doc.Get(ptr)
	return unknownKeys(keys, doc, ptr, "", v)
}

// unknownKeys walks v at ptr; pattern is its pointer in the schema's key
// tree (list indexes as "*").
func unknownKeys(keys schema.Keys, doc *yamlsrc.Doc, ptr, pattern string, v any) diag.List {
	var out diag.List
	switch x := v.(type) {
	case map[string]any:
		known, checked := keys[pattern]
		if !checked {
			return nil
		}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			p := ptr + "/" + yamlsrc.EscapePointer(k)
			if !known[k] {
				d := doc.Warnf(p, "unknown key %q is ignored", k)
				if l, c := doc.KeyPos(p); l > 0 {
					d.Line, d.Col = l, c
				}
				out = append(out, d)
				continue
			}
			out = append(out, unknownKeys(keys, doc, p, pattern+"/"+yamlsrc.EscapePointer(k), x[k])...)
		}
	case []any:
		for i, e := range x {
			out = append(out, unknownKeys(keys, doc, ptr+"/"+strconv.Itoa(i), pattern+"/*", e)...)
		}
	}
	return out
}
