package agentleak

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"

	"github.com/lfcli/lf/pkg/agentleak/detect"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Vault is what one scenario's agent was trusted with: records of fields,
// the fields it may disclose, and planted canaries.
type Vault struct {
	Key string

	fields     []vaultField
	fieldKey   map[findingKey]int // secret (name, value) -> level
	levels     [4]int             // number of fields per level
	values     *detect.Matcher    // lowercased field values
	canaryList []canary
	canaries   *detect.Matcher // case-sensitive canaries
	// lines are the canary lines of a vault read by indexVaults, read into
	// canaryList when a trace first uses the vault.
	lines string

	ready sync.Once // the automata are built when a trace first uses the vault
}

// prepare builds the vault's automata once (a vault file may hold thousands
// of vaults that the traces at hand never use).
func (v *Vault) prepare() {
	v.ready.Do(func() {
		if v.lines != "" {
			for t, items := range canaryLines(v.lines) {
				v.addCanaries(t, items)
			}
			v.lines = ""
		}
		if len(v.fields) > 0 {
			pats := make([]string, len(v.fields))
			for i, f := range v.fields {
				pats[i] = f.lower
			}
			v.values = detect.NewMatcher(pats)
		}
		if len(v.canaryList) > fewCanaries {
			pats := make([]string, len(v.canaryList))
			for i, c := range v.canaryList {
				pats[i] = c.text
			}
			v.canaries = detect.NewMatcher(pats)
		}
	})
}

type vaultField struct {
	name, value, lower string
	key                findingKey
	level              int
}

type canary struct {
	text, tier, tierName string
	probe                detect.CanaryProbe // where containsCanary starts its search
}

// Vaults indexes vaults by key.
type Vaults struct {
	byKey map[string]*Vault
}

// Len returns the number of vaults.
func (vs *Vaults) Len() int {
	if vs == nil {
		return 0
	}
	return len(vs.byKey)
}

func (vs *Vaults) lookup(key string) *Vault {
	if vs == nil {
		return nil
	}
	v := vs.byKey[key]
	if v != nil {
		v.prepare()
	}
	return v
}

// Has reports whether a vault with key exists.
func (vs *Vaults) Has(key string) bool { return vs.lookup(key) != nil }

type rawVaults struct {
	Vaults []rawVault `json:"vaults"`
}

type rawVault struct {
	Key     string `json:"key"`
	Records []struct {
		RecordType string         `json:"record_type"`
		Fields     map[string]any `json:"fields"`
	} `json:"records"`
	AllowedFields []string            `json:"allowed_fields"`
	Canaries      map[string][]string `json:"canaries"`
}

// LoadVaults reads vault files (each a `vaults:` list) into one index; a
// later file's vault replaces an earlier one with the same key.
func LoadVaults(paths, displays []string) (*Vaults, diag.List, error) {
	vs := &Vaults{byKey: map[string]*Vault{}}
	var all diag.List
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, all, diag.Invalidf("vaults %s: %v", displays[i], err)
		}
		ds := vs.add(displays[i], data)
		all = append(all, ds...)
	}
	if all.HasErrors() {
		return nil, all, diag.Invalid(all)
	}
	return vs, all, nil
}

// VaultsFile is the file kind of AgentLeak vaults. Files in the common
// shape (vault keys and canary lists, as the packs and the generator write
// them) are read by fastVaults before it; everything else goes through it.
var VaultsFile = kind.Kind[rawVaults, struct{}]{
	Name:        "vaults",
	Description: "an AgentLeak vaults file",
	Keys:        []string{"vaults"},
	Schema:      "vaults",
}

// ParseVaults parses one vault file's data. The vaults may refer to data's
// bytes: the caller must not change them afterwards.
func ParseVaults(file string, data []byte) (*Vaults, diag.List) {
	vs := &Vaults{byKey: map[string]*Vault{}}
	ds := vs.add(file, data)
	return vs, ds
}

// add reads one vault file's data into vs; the vaults may refer to data's
// bytes, which must not change afterwards.
func (vs *Vaults) add(file string, data []byte) diag.List {
	// The common shape (vault keys and canary lists, as the packs and the
	// generator write them) is read directly, each vault's canaries when
	// it is first used; anything else goes through the YAML parser and the
	// schema.
	if idx, ok := indexVaults(data); ok {
		if len(vs.byKey) == 0 {
			vs.byKey = make(map[string]*Vault, len(idx))
		}
		for _, vl := range idx {
			vs.byKey[vl.key] = &Vault{Key: vl.key, lines: vl.lines}
		}
		return nil
	}
	res := VaultsFile.Parse(file, data, struct{}{})
	doc, ds := res.Doc, res.Diags
	if ds.HasErrors() {
		return ds
	}
	raw := res.Values[0]
	if len(vs.byKey) == 0 {
		vs.byKey = make(map[string]*Vault, len(raw.Vaults))
	}
	for vi, rv := range raw.Vaults {
		v := &Vault{Key: rv.Key}
		var allowed map[string]bool
		if len(rv.AllowedFields) > 0 {
			allowed = make(map[string]bool, len(rv.AllowedFields))
			for _, a := range rv.AllowedFields {
				allowed[a] = true
			}
		}
		for ri, rec := range rv.Records {
			names := make([]string, 0, len(rec.Fields))
			for n := range rec.Fields {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				ptr := fmt.Sprintf("/vaults/%d/records/%d/fields/%s", vi, ri, yamlsrc.EscapePointer(n))
				val, level, ok := fieldValue(rec.Fields[n], n)
				if !ok {
					ds = append(ds, doc.Errorf(ptr, "a field value must be a string, a number or {value, level}"))
					continue
				}
				if allowed[n] || len(val) <= 3 {
					continue
				}
				key := findingKey{n, val}
				if _, dup := v.fieldKey[key]; dup {
					continue
				}
				if level < 1 || level > 4 {
					level = 4
				}
				if v.fieldKey == nil {
					v.fieldKey = map[findingKey]int{}
				}
				v.fieldKey[key] = level
				v.levels[level-1]++
				v.fields = append(v.fields, vaultField{name: n, value: val, lower: string(detect.LowerASCII(nil, val)), key: key, level: level})
			}
		}
		for t, tier := range canaryTiers {
			v.addCanaries(t, rv.Canaries[tier.name])
		}
		vs.byKey[v.Key] = v
	}
	return ds
}

// addCanaries adds the canaries of tier t (an index into canaryTiers).
func (v *Vault) addCanaries(t int, items []string) {
	for _, c := range items {
		if c != "" {
			v.canaryList = append(v.canaryList, canary{c, canaryTiers[t].name, canaryTiers[t].tier, detect.NewCanaryProbe(c)})
		}
	}
}

// canaryTiers are the canary tiers in the order they are searched, with
// the tier their findings report.
var canaryTiers = [...]struct{ name, tier string }{
	{"obvious", "canary_obvious"}, {"realistic", "canary_realistic"}, {"semantic", "canary_semantic"},
}

// fewCanaries is how many canaries are searched one by one rather than
// with an automaton.
const fewCanaries = 8

func fieldValue(x any, name string) (string, int, bool) {
	switch v := x.(type) {
	case string:
		return v, detect.DefaultLevel(name), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), detect.DefaultLevel(name), true
	case int64:
		return strconv.FormatInt(v, 10), detect.DefaultLevel(name), true
	case map[string]any:
		s, lv, ok := fieldValue(v["value"], name)
		if !ok {
			return "", 0, false
		}
		if l, ok := v["level"].(float64); ok {
			lv = int(l)
		}
		if l, ok := v["level"].(int64); ok {
			lv = int(l)
		}
		return s, lv, true
	}
	return "", 0, false
}
