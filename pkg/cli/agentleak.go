package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/progress"
	"github.com/lfcli/lf/pkg/report"
)

func agentleakCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "agentleak",
		Usage: "AgentLeak privacy-leak evaluation of agent traces",
		Subcommands: []*ucli.Command{{
			Name:      "scan",
			Usage:     "scan agent traces on every channel, score them with AgentRisk and record the run",
			ArgsUsage: "TRACE... (JSONL, a JSON file per trace, a folder, a glob, or - for stdin)",
			Description: "Exit 1 when a trace is blocked (score below scoring.fail_below, a level 4 secret leaked\n" +
				"with block_on_critical, or a privacy policy violation) or the inputs hold no trace at all;\n" +
				"exit 3 on bad input (a trace without events is bad input; events: [] is a run with no events).\n" +
				"Values are redacted (first 2 and last 2 characters) unless --show-values is given;\n" +
				"raw values never reach the store.",
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "agentleak.yaml `FILE` (default: every channel and detector on)"},
				&ucli.StringSliceFlag{Name: "vaults", Usage: "vault `PATH` (file, folder or glob); repeatable"},
				&ucli.StringFlag{Name: "vault", Usage: "use the vault with `KEY` for every trace (default: the trace's scenario_id)"},
				outputFlag("table", append([]string{"table", "json", "jsonl"}, ciFormats...)...),
				&ucli.BoolFlag{Name: "show-values", Usage: "print raw secret values (never stored)"},
				&ucli.StringFlag{Name: "evaluation-key", Usage: "evaluation `KEY` of the recorded run (default: the config's project.name, else agentleak)"},
				&ucli.BoolFlag{Name: "no-record", Usage: "do not record the scan in the store"},
				&ucli.BoolFlag{Name: "keep-going", Usage: "report bad traces and keep scanning the others"},
				&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error (also LF_QUIET=1)"},
				&ucli.IntFlag{Name: "workers", Value: runtime.GOMAXPROCS(0), Usage: "traces scanned in parallel (`N`; output order is kept)"},
				&ucli.StringFlag{Name: "compliance", Value: "summary", Usage: "what each result says of the framework mapping: summary (frameworks and controls at risk), full (every control with its evidence, the evidence matrix and its digest; SOURCE_DATE_EPOCH fixes the report time) or off (`MODE`)"},
				&ucli.StringSliceFlag{Name: "fail-on-compliance", Usage: "exit 1 when a trace puts a control of `FRAMEWORK` at risk (an id such as gdpr, hipaa, owasp_llm, or any); repeatable"},
			},
			Action: func(c *ucli.Context) error { return agentleakScan(c, env) },
		}},
	}
}

func agentleakScan(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, append([]string{"table", "json", "jsonl"}, ciFormats...)...)
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return diag.Usagef("agentleak scan: give at least one trace file (or - for stdin)")
	}
	if n := c.Int("workers"); n < 1 {
		return diag.Usagef("--workers %d: give at least 1 (traces scanned in parallel)", n)
	}
	mode, ok := agentleak.ParseComplianceMode(c.String("compliance"))
	if !ok {
		return diag.Usagef("--compliance %q: use %s", c.String("compliance"), strings.Join(agentleak.ComplianceModes, ", "))
	}
	failOn := c.StringSlice("fail-on-compliance")
	for _, id := range failOn {
		if !slices.Contains(agentleak.ComplianceFrameworkIDs(), id) {
			return diag.Usagef("--fail-on-compliance %q: not a framework; use one of %s", id, strings.Join(agentleak.ComplianceFrameworkIDs(), ", "))
		}
	}
	if mode == agentleak.ComplianceSummary && slices.Contains(ciFormats, format) {
		// The CI formats are written once, at the end: their SARIF results
		// name the controls each finding is evidence for.
		mode = agentleak.ComplianceFull
	}
	if len(failOn) > 0 && mode == agentleak.ComplianceOff {
		return diag.Usagef("--fail-on-compliance needs the mapping: it cannot gate with --compliance off")
	}
	// A scan's live heap is small (vaults, the batches in flight) and its
	// garbage is per trace: collecting at 4x the live heap instead of 2x
	// took the 18,760-event benchmark from 111 to 88 ms (best of 8), at
	// 45 MB peak instead of 38. GOGC, when set, decides.
	if env.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	bw := bufio.NewWriterSize(env.Stdout, 256<<10)
	out := &scanWriter{w: bw, format: format, show: c.Bool("show-values"), ci: newCIWriter(format, bw)}
	// Progress on a terminal, for scans that take more than a second.
	bar := progress.New(env.Stderr, progress.Options{Description: "scanning traces", Total: -1, Quiet: c.Bool("quiet") || progress.Quiet(env.Getenv)})
	render := out.render()
	plan, err := agentleak.Prepare(agentleak.ScanInputs{
		Config:        c.String("config"),
		Vaults:        c.StringSlice("vaults"),
		Traces:        c.Args().Slice(),
		Stdin:         env.Stdin,
		Display:       func(p string) string { return env.Rel(alAbs(p)) },
		VaultKey:      c.String("vault"),
		EvaluationKey: c.String("evaluation-key"),
		KeepGoing:     c.Bool("keep-going"),
		Workers:       c.Int("workers"),
		OnResult:      func(r *agentleak.Result) error { bar.Add(1); return out.write(r) },
		Render:        render,
		// A rendered line is copied into the buffered writer: nothing of
		// the result is kept.
		Transient:  render != nil,
		Compliance: mode,
	})
	if err != nil {
		return err
	}
	printWarnings(env, plan.Warnings)
	var st agentleak.ScanStore // nil: --no-record
	if !c.Bool("no-record") {
		s, err := env.OpenStore(c.Context)
		if err != nil {
			return err
		}
		defer s.Close()
		st = s.Backend
	}
	sr, runErr := plan.Run(c.Context, st)
	bar.Finish()
	if err := out.close(); err != nil {
		return diag.Internal(err)
	}
	if err := bw.Flush(); err != nil {
		return diag.Internal(err)
	}
	if sr == nil {
		return runErr
	}
	if sr.Status == agentleak.ScanRecorded {
		fmt.Fprintf(env.Stderr, "recorded run %s of evaluation %s (%d result%s)\n", sr.RunID, sr.EvaluationKey, sr.Recorded, plural(sr.Recorded))
	}
	if format == "table" {
		fmt.Fprintf(env.Stdout, "%d trace%s scanned, %d blocked\n", sr.Traces, plural(sr.Traces), sr.Blocked)
		if sr.Compliance != nil && sr.Traces > 0 {
			fmt.Fprintln(env.Stdout, sr.Compliance.Line())
		}
	}
	if runErr != nil {
		return runErr
	}
	if sr.Status == agentleak.ScanEmpty {
		return diag.Gatef("no trace in the inputs: nothing scanned, nothing recorded")
	}
	var gate []string
	if sr.Blocked > 0 {
		gate = append(gate, fmt.Sprintf("%d of %d trace%s blocked", sr.Blocked, sr.Traces, plural(sr.Traces)))
	}
	if len(failOn) > 0 {
		if at := sr.Compliance.AtRisk(failOn); len(at) > 0 {
			gate = append(gate, "controls at risk in "+strings.Join(at, ", "))
		}
	}
	if len(gate) > 0 {
		return diag.Gatef("%s", strings.Join(gate, "; "))
	}
	return nil
}

func alAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// scanWriter prints each result as it comes, so that memory stays flat.
type scanWriter struct {
	w      io.Writer
	format string
	show   bool
	n      int
	buf    []byte        // jsonl: a line, reused
	ci     output.Writer // JUnit, SARIF or Markdown: collected, written on close
}

// render returns the formatting that can run on the scanning goroutines
// (JSONL: a line depends on its result alone), or nil.
func (s *scanWriter) render() func(*agentleak.Result, []byte) []byte {
	if s.ci != nil || s.format != "jsonl" {
		return nil
	}
	show := s.show
	return func(r *agentleak.Result, dst []byte) []byte {
		agentleak.RedactFindings(r, show)
		return append(r.AppendJSON(dst), '\n')
	}
}

func (s *scanWriter) write(r *agentleak.Result) error {
	defer func() { s.n++ }()
	if r.Output != nil {
		// render made the line (and redacted the findings) already.
		_, err := s.w.Write(r.Output)
		return err
	}
	agentleak.RedactFindings(r, s.show)
	if s.ci != nil {
		return s.ci.Write(report.Trace{Result: r, ShowValues: s.show})
	}
	switch s.format {
	case "jsonl":
		// The result writes compact JSON itself into one reused buffer.
		s.buf = append(r.AppendJSON(s.buf[:0]), '\n')
		_, err := s.w.Write(s.buf)
		return err
	case "json":
		b, err := json.MarshalIndent(r, "  ", "  ")
		if err != nil {
			return err
		}
		sep := ",\n  "
		if s.n == 0 {
			sep = "[\n  "
		}
		_, err = fmt.Fprintf(s.w, "%s%s", sep, b)
		return err
	}
	return s.table(r)
}

func (s *scanWriter) close() error {
	if s.ci != nil {
		return s.ci.Close()
	}
	if s.format != "json" {
		return nil
	}
	if s.n == 0 {
		_, err := io.WriteString(s.w, "[]\n")
		return err
	}
	_, err := io.WriteString(s.w, "\n]\n")
	return err
}

func (s *scanWriter) table(r *agentleak.Result) error {
	if s.n > 0 {
		fmt.Fprintln(s.w)
	}
	blocked := "no"
	if r.Blocked {
		blocked = "yes: " + strings.Join(r.BlockReasons, "; ")
	}
	fmt.Fprintf(s.w, "== %s (run %s, %s)\n", r.ScenarioID, r.RunID, count(r.Events, "event", "events"))
	if err := output.Table(s.w, []string{"risk index", "privacy score", "verdict", "leaked / detected", "blocked"}, [][]string{{
		strconv.FormatFloat(r.RiskIndex, 'f', 4, 64), strconv.Itoa(r.PrivacyScore), r.Verdict,
		fmt.Sprintf("%d / %d", r.LeakedSecrets, r.VaultSecrets), blocked,
	}}); err != nil {
		return err
	}
	if len(r.RIByChannel) > 0 {
		var rows [][]string
		for _, ch := range r.RIByChannel {
			rows = append(rows, []string{ch.Channel, strconv.FormatFloat(ch.RI, 'f', 4, 64)})
		}
		if err := output.Table(s.w, []string{"channel", "risk index"}, rows); err != nil {
			return err
		}
	}
	if v := r.Vault; v != nil {
		line := fmt.Sprintf("vault %s: %d of %s leaked (%.1f%%), %s leaked", v.Key, v.FieldsLeaked, count(v.Fields, "field", "fields"), 100*v.LeakShare, count(v.CanariesHit, "canary", "canaries"))
		if len(v.LeaksByChannel) > 0 {
			var parts []string
			for _, ch := range agentleak.Channels {
				if n := v.LeaksByChannel[ch]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s %d", ch, n))
				}
			}
			line += "; vault leaks by channel: " + strings.Join(parts, ", ")
		}
		fmt.Fprintln(s.w, line)
	}
	if c := r.Compliance; c != nil {
		a := &c.Assessment
		line := fmt.Sprintf("compliance: %d/%d frameworks clear, %s at risk", a.Clear(), a.Clear()+a.FrameworksAtRisk, count(a.ControlsAtRisk, "control", "controls"))
		if at := a.FailedFrameworks(); len(at) > 0 {
			line += ": " + strings.Join(at, ", ")
		}
		fmt.Fprintln(s.w, line)
	}
	var rows [][]string
	for _, f := range r.Findings {
		if !f.Leaked {
			continue
		}
		v := f.Redacted
		if s.show {
			v = f.Value
		}
		rows = append(rows, []string{f.EventID, f.Channel, f.DataType, strconv.Itoa(f.Level), f.Detector, v})
	}
	if len(rows) > 0 {
		return output.Table(s.w, []string{"event", "channel", "data type", "level", "detector", "value"}, rows)
	}
	fmt.Fprintln(s.w, "no leaks")
	return nil
}
