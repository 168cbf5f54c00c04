package kind

import (
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// TestIDRuleMatchesSchema checks CheckID against schemas/ids.schema.json on
// good and bad ids.
func TestIDRuleMatchesSchema(t *testing.T) {
	ids := []struct {
		id string
		ok bool
	}{
		{"acme", true},
		{"agent-1", true},
		{"a.b", true},
		{"a..b", true},
		{"tenant x", true},
		{"é", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("é", 128), true},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{"../x", false},
		{"a\\b", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\x7f", false},
		{strings.Repeat("a", 129), false},
		{strings.Repeat("a", 600), false},
	}
	for _, c := range ids {
		err := CheckID("id", c.id)
		if (err == nil) != c.ok {
			t.Errorf("CheckID(%q) = %v, want ok=%v", c.id, err, c.ok)
		}
		doc := &yamlsrc.Doc{File: "x", Value: c.id}
		ds := schema.Validate("ids", doc)
		if ds.HasErrors() == c.ok {
			t.Errorf("schema on %q: %v, want ok=%v", c.id, ds, c.ok)
		}
	}
}
