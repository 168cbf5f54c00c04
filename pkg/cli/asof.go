package cli

import (
	"context"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// atFlag is --at of the commands that score as of a moment.
func atFlag(usage string) *ucli.StringFlag {
	return &ucli.StringFlag{Name: "at", Usage: usage + " (RFC 3339, e.g. 2026-11-20T00:00:00Z, or a time ago: 7d, 12h, 30m, 2w)"}
}

// relUnits are the units of a time ago or a window ("7d").
var relUnits = project.WhenUnits

// parseWhen reads the moment of flag (project.ParseWhen): RFC 3339, or a
// whole number and a unit (s, m, h, d, w) meaning that long before now. ""
// is the zero time (no moment given).
func parseWhen(flag, s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, ok := project.ParseWhen(s, now); ok {
		return t, nil
	}
	return time.Time{}, diag.Usagef("--%s %q is neither RFC 3339 (e.g. 2026-11-20T00:00:00Z) nor a time ago such as 7d, 12h, 30m or 2w", flag, s)
}

// formatWhen renders a moment as messages and documents show it.
func formatWhen(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// blindGate returns the ExitGate error of a gate that cannot see as of at:
// no evaluation run of the app was created at or before at. A gate is never
// green because it saw nothing; --allow-no-data accepts it, as it accepts
// scorers with no data (which the gate itself trips on). It returns nil
// when failOn is off or at is the zero time.
func blindGate(ctx context.Context, st *store.Store, at time.Time, failOn risk.Gate) error {
	if !failOn.On() || failOn.AllowNoData || at.IsZero() {
		return nil
	}
	saw, err := project.RunsAt(ctx, st, at)
	if err != nil {
		return err
	}
	if !saw {
		return diag.Gatef("--fail-on %s as of %s: nothing to score: no evaluation run%s was created at or before that time (accept it with --allow-no-data)",
			failOn.Level, formatWhen(at), appSuffix(st))
	}
	return nil
}

func appSuffix(st *store.Store) string {
	if st.App() == "" {
		return ""
	}
	return fmt.Sprintf(" of app %q", st.App())
}
