package agentrisk

import "github.com/lfcli/lf/pkg/diag"

// invalid turns semantic config problems into an ExitInvalid error.
func invalid(d diag.List) error { return diag.Invalid(d) }
