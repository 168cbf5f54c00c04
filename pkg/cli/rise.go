package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/report"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// riseFlags are the regression-gate flags of lf overview risk-scorers.
func riseFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "fail-on-rise", Usage: "exit 1 when a risk scorer's level is higher than at the --baseline (or it has no value now while it had a level then)"},
		&ucli.StringFlag{Name: "baseline", Usage: "compare with `BASELINE`: a file written by an earlier `lf overview risk-scorers -o json`, or a time (RFC 3339, or ago: 7d, 12h)"},
		&ucli.BoolFlag{Name: "fail-on-new", Usage: "with --fail-on-rise, also fail on a risk scorer that had no level at the baseline"},
	}
}

// parseRise reads the regression-gate flags: the baseline is read from its
// file, or scored as of its time with the same filter as the overview.
func parseRise(c *ucli.Context, st *store.Store, f project.OverviewFilter) (risk.RiseGate, error) {
	g := risk.RiseGate{Fail: c.Bool("fail-on-rise"), FailOnNew: c.Bool("fail-on-new")}
	spec := c.String("baseline")
	if spec == "" {
		if g.Fail || g.FailOnNew {
			return g, diag.Usagef("--fail-on-rise and --fail-on-new need --baseline FILE or --baseline TIME")
		}
		return g, nil
	}
	if g.FailOnNew && !g.Fail {
		return g, diag.Usagef("--fail-on-new goes with --fail-on-rise")
	}
	var err error
	if fi, statErr := os.Stat(spec); statErr == nil && !fi.IsDir() {
		g.Baseline, err = project.ReadBaseline(spec, st.App())
		return g, err
	}
	at, err := parseWhen("baseline", spec, time.Now())
	if err != nil {
		return g, diag.Usagef("--baseline %q is neither a file nor a time (RFC 3339, or ago such as 7d)", spec)
	}
	if !f.At.IsZero() && !at.Before(f.At) {
		return g, diag.Usagef("--baseline %s is not before --at %s", formatWhen(at), formatWhen(f.At))
	}
	g.Baseline, err = project.BaselineAt(c.Context, st, f, at)
	if errors.Is(err, project.ErrBaselineBlind) {
		if g.Fail {
			return g, diag.Gatef("--fail-on-rise --baseline %s: %v%s", formatWhen(at), err, appSuffix(st))
		}
		return g, nil // only reporting: nothing to report against
	}
	return g, err
}

// writeScorersRise is writeScorers with a baseline (caption names the app
// and store shown): the CI formats say
// what rose and from where; the table is followed, on standard error, by
// one line per scorer whose level changed.
func writeScorersRise(env *Env, res []risk.Result, format string, failOn risk.Gate, rise risk.RiseGate, caption string) error {
	w := newCIWriter(format, env.Stdout)
	if w == nil {
		if err := writeOverview(env, res, format, caption); err != nil {
			return err
		}
		if format == "table" {
			for _, ch := range rise.Compare(res) {
				if ch.Kind != risk.ChangeSame {
					fmt.Fprintf(env.Stderr, "%s: %s\n", ch.Key, rise.Describe(ch))
				}
			}
		}
		return nil
	}
	suite := ""
	if caption != "" {
		suite = "lf overview risk-scorers (" + caption + ")"
	}
	if err := w.Write(report.Scorers{Suite: suite, Results: res, FailOn: failOn, Rise: rise}); err != nil {
		return diag.Internal(err)
	}
	return w.Close()
}

// gates checks --fail-on and --fail-on-rise together: one ExitGate error
// naming what trips either.
func gates(res []risk.Result, failOn risk.Gate, rise risk.RiseGate) error {
	var msgs []string
	if err := failOn.Check(res); err != nil {
		msgs = append(msgs, err.Error())
	}
	if err := rise.Check(res); err != nil {
		msgs = append(msgs, err.Error())
	}
	if len(msgs) == 0 {
		return nil
	}
	return diag.Gatef("%s", strings.Join(msgs, "\n"))
}
