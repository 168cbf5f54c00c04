package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/diag"
)

// TestLocateStoreError: a store error without its location gets the
// store's path, and a read-only store says what it needs; the exit code
// stays.
func TestLocateStoreError(t *testing.T) {
	e := &Env{openedStore: ".lf/lf.db"}
	err := e.locateStoreError(diag.Internal(errors.New("store: insert risk-scorer s: attempt to write a readonly database (8)")))
	msg := err.Error()
	if !strings.HasPrefix(msg, "store .lf/lf.db: insert risk-scorer s: attempt to write a readonly database") || !strings.Contains(msg, "read-only") {
		t.Errorf("read-only store: %q", msg)
	}
	if diag.ExitCode(err) != diag.ExitInternal {
		t.Errorf("exit %d, want %d", diag.ExitCode(err), diag.ExitInternal)
	}
	plain := diag.Invalidf("risk scorer %q not found", "x")
	if got := e.locateStoreError(plain); got != plain {
		t.Errorf("other errors are left alone: %v", got)
	}
	if got := (&Env{}).locateStoreError(diag.Internal(errors.New("store: x"))).Error(); got != "store: x" {
		t.Errorf("no store opened: %q", got)
	}
}
