package agentleak

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
	"github.com/lfcli/lf/pkg/schema"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// slowVaults is the generic path: the YAML parser, the schema, the decoder.
func slowVaults(t *testing.T, data []byte) rawVaults {
	doc, ds := yamlsrc.Parse("v.yaml", data)
	ds = append(ds, schema.Validate("vaults", doc)...)
	if ds.HasErrors() {
		t.Fatalf("generic path: %v", ds)
	}
	var raw rawVaults
	if err := doc.Decode("", &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestFastVaultsDifferential: where the fast reader accepts a file, it reads
// exactly what the generic path reads; where the shape is unusual, it declines.
func TestFastVaultsDifferential(t *testing.T) {
	var b strings.Builder
	b.WriteString("vaults:\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "  - key: \"s_%d\"\n    canaries:\n      obvious: [\"CANARY_%d\", \"x y é\"]\n      semantic: [\"a, b: c\"]\n", i, i)
	}
	inputs := map[string]string{
		"generated": b.String(),
		"escapes":   "vaults:\n  - key: \"a\\\"b\"\n    canaries:\n      obvious: [\"x\\\"y\", \"l1\\nl2\\tt\\\\ \\/ \\u00e9\\u4e2d\", \"\\\", \\\"\"]\n",
	}
	mustAccept := []string{"generated", "escapes"}
	if d := testfiles.SharedDir(); d != "" {
		files, _ := filepath.Glob(filepath.Join(d, "conformance", "*", "*", "vaults.yaml"))
		more, _ := filepath.Glob(filepath.Join(d, "conformance", "*", "vaults.yaml"))
		for _, f := range append(files, more...) {
			data, err := os.ReadFile(f)
			if err == nil {
				inputs[f] = string(data)
				mustAccept = append(mustAccept, f)
			}
		}
	}
	for _, name := range mustAccept {
		if _, ok := fastVaults([]byte(inputs[name])); !ok && !strings.Contains(inputs[name], "records:") {
			t.Errorf("%s: the fast reader declined a file of keys and canaries", name)
		}
	}
	accepted := 0
	for name, in := range inputs {
		fast, ok := fastVaults([]byte(in))
		if !ok {
			continue
		}
		accepted++
		slow := slowVaults(t, []byte(in))
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: fast and generic readers differ", name)
		}
	}
	if accepted == 0 {
		t.Error("the fast reader accepted no input")
	}
	for _, in := range []string{
		"vaults:\n  - key: \"a\"\n    canaries:\n      obvious: [\"x\\x41y\"]\n",   // an escape JSON does not have
		"vaults:\n  - key: \"a\"\n    canaries:\n      obvious: [\"x\\ud800y\"]\n", // a surrogate
		"vaults:\n  - key: \"a\"\n    canaries:\n      obvious: [\"x\\\"]\n",       // an unterminated string
		"vaults:\n  - key: \"a\"\n    canaries:\n      obvious: [\"x\ty\"]\n",      // a tab
		"vaults:\n  - key: \"a\"\n    records:\n      - fields: {name: Jane Doe}\n",
		"vaults:\n  - key: \"a\"\n    canaries:\n      other: [\"x\"]\n",
		"vaults:\n  - key: \"a\" # comment\n    canaries:\n      obvious: [\"x\"]\n",
		"vaults:\n  - key: a\n    canaries:\n      obvious: [\"x\"]\n",
		"vaults:\n  - key: \"a\"\n",
		"vaults: []\n",
	} {
		if _, ok := fastVaults([]byte(in)); ok {
			t.Errorf("fast reader accepted an unusual shape:\n%s", in)
		}
	}
}
