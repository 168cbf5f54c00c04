package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestExampleOutputsValid checks the samples in examples/outputs against the
// same schemas as the writers' own output.
func TestExampleOutputsValid(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "outputs")
	junits, _ := filepath.Glob(filepath.Join(dir, "*.junit.xml"))
	sarifs, _ := filepath.Glob(filepath.Join(dir, "*.sarif"))
	if len(junits) == 0 || len(sarifs) == 0 {
		t.Fatalf("no JUnit or SARIF samples in %s", dir)
	}
	for _, p := range junits {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := validateXSD(t, b); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	schema := sarifSchema(t)
	for _, p := range sarifs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := schema.Validate(doc); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
