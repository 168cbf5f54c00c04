package cli

import (
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestWrittenSchemasCompileFromDisk: the copies lf writes for editors resolve
// their $refs from the folder they are in, as an editor resolves them.
func TestWrittenSchemasCompileFromDisk(t *testing.T) {
	dir := t.TempDir()
	if _, err := writeSchemas(dir, []string{"server-config"}); err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if _, err := c.Compile(filepath.Join(dir, "server-config.schema.json")); err != nil {
		t.Fatalf("written schema does not compile from disk: %v", err)
	}
}
