package cli

import (
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
)

// count renders n with the singular or plural noun: "1 entity", "2 entities"
// (output.Count, which domain packages use for their titles).
func count(n int, one, many string) string { return diag.Count(n, one, many) }

// storedTime renders a time as the store keeps it (fixed-width nanoseconds,
// so that text order is time order) the way lf prints times: RFC 3339 with
// seconds unless the value has a fraction (output.Time). Text that is not a
// time is returned as it is.
func storedTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return output.Time(t)
}
