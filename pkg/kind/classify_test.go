package kind

import (
	"testing"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// TestFileAndClassify: a kind's File carries what tells its files apart
// (Keys, else List; FileName), and Classify picks by file name first,
// then the first kind whose keys the file holds.
func TestFileAndClassify(t *testing.T) {
	marker := (&Kind[cfg, struct{}]{Name: "m", FileName: "m.yaml", Keys: []string{"name"}}).File(struct{}{})
	list := (&Kind[cfg, struct{}]{Name: "l", List: "items", Description: "a list"}).File(struct{}{})
	one := (&Kind[cfg, struct{}]{Name: "o", Keys: []string{"a", "items"}}).File(struct{}{})
	if len(list.Keys) != 1 || list.Keys[0] != "items" || list.Description != "a list" {
		t.Errorf("list kind's keys %v", list.Keys)
	}
	kinds := []File{marker, list, one}
	for _, c := range []struct {
		name string
		top  map[string]any
		want string
	}{
		{"m.yaml", map[string]any{"a": 1}, "m"},
		{"x.yaml", map[string]any{"items": 1}, "l"},
		{"x.yaml", map[string]any{"a": 1}, "o"},
		{"x.yaml", map[string]any{"name": 1}, "m"},
		{"x.yaml", map[string]any{"b": 1}, ""},
	} {
		got := ""
		if k := Classify(kinds, c.name, c.top); k != nil {
			got = k.Name
		}
		if got != c.want {
			t.Errorf("%s %v: %q, want %q", c.name, c.top, got, c.want)
		}
	}
}

// TestEntryDecode: a kind's Decode replaces the JSON round trip, its
// problems stop the entry before Check; without it, a value that does not
// decode is located at its entry.
func TestEntryDecode(t *testing.T) {
	doc, _ := yamlsrc.Parse("f.yaml", []byte("risk_configs:\n  - {tenantId: a}\n  - {tenantId: 7}\n"))
	checked := 0
	k := Kind[cfg, struct{}]{
		List: "risk_configs",
		Check: func(*yamlsrc.Doc, string, *cfg, struct{}) diag.List {
			checked++
			return nil
		},
	}
	if v, ds, ok := k.Entry(doc, "/risk_configs/0", struct{}{}); !ok || v.TenantID != "a" || len(ds) != 0 {
		t.Errorf("entry 0: %+v %v %v", v, ds, ok)
	}
	if _, ds, ok := k.Entry(doc, "/risk_configs/1", struct{}{}); ok || len(ds) != 1 || ds[0].Pointer != "/risk_configs/1" {
		t.Errorf("entry 1: %v %v", ds, ok)
	}
	k.Decode = func(doc *yamlsrc.Doc, ptr string) (cfg, diag.List) {
		return cfg{}, diag.List{doc.Errorf(ptr+"/tenantId", "no")}
	}
	if _, ds, ok := k.Entry(doc, "/risk_configs/0", struct{}{}); ok || len(ds) != 1 || ds[0].Pointer != "/risk_configs/0/tenantId" {
		t.Errorf("Decode: %v %v", ds, ok)
	}
	if checked != 1 {
		t.Errorf("checked %d entries, want 1", checked)
	}
}
