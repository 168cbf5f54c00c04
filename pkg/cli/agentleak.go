package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/report"
	"github.com/lfcli/lf/pkg/store"
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
				"with block_on_critical, or a privacy policy violation); exit 3 on bad input.\n" +
				"Values are redacted (first 2 and last 2 characters) unless --show-values is given;\n" +
				"raw values never reach the store.",
			Flags: []ucli.Flag{
				&ucli.StringFlag{Name: "config", Aliases: []string{"c"}, Usage: "agentleak.yaml `FILE` (default: every channel and detector on)"},
				&ucli.StringSliceFlag{Name: "vaults", Usage: "vault `PATH` (file, folder or glob); repeatable"},
				&ucli.StringFlag{Name: "vault", Usage: "use the vault with `KEY` for every trace (default: the trace's scenario_id)"},
				outputFlag("table", "table", "json", "jsonl"),
				&ucli.BoolFlag{Name: "show-values", Usage: "print raw secret values (never stored)"},
				&ucli.StringFlag{Name: "evaluation-key", Usage: "evaluation `KEY` of the recorded run (default: the config's project.name, else agentleak)"},
				&ucli.BoolFlag{Name: "no-record", Usage: "do not record the scan in the store"},
				&ucli.BoolFlag{Name: "keep-going", Usage: "report bad traces and keep scanning the others"},
				&ucli.IntFlag{Name: "workers", Value: runtime.GOMAXPROCS(0), Usage: "traces scanned in parallel (`N`; output order is kept)"},
			},
			Action: func(c *ucli.Context) error { return agentleakScan(c, env) },
		}},
	}
}

func agentleakScan(c *ucli.Context, env *Env) error {
	format, err := outputFormat(c, "table", "json", "jsonl")
	if err != nil {
		return err
	}
	if c.NArg() == 0 {
		return diag.Usagef("agentleak scan: give at least one trace file (or - for stdin)")
	}
	cfg := agentleak.DefaultConfig()
	if p := c.String("config"); p != "" {
		var warns diag.List
		cfg, warns, err = agentleak.LoadConfig(p, env.Rel(alAbs(p)))
		if err != nil {
			return err // the warnings are in the error's list
		}
		printWarnings(env, warns)
	}
	vaults, err := loadVaultArgs(env, c.StringSlice("vaults"))
	if err != nil {
		return err
	}
	if k := c.String("vault"); k != "" && !vaults.Has(k) {
		return diag.Usagef("--vault %s: no vault with that key in the given vault files", k)
	}
	inputs, err := agentleak.ExpandInputs(c.Args().Slice(), env.Stdin, func(p string) string { return env.Rel(alAbs(p)) })
	if err != nil {
		return err
	}
	evalKey := c.String("evaluation-key")
	if evalKey == "" {
		evalKey = cfg.ProjectName
	}
	if evalKey == "" {
		evalKey = agentleak.DefaultEvaluationKey
	}
	record := !c.Bool("no-record")
	show := c.Bool("show-values")

	sc := agentleak.NewScanner(cfg, vaults)
	sc.VaultKey = c.String("vault")
	bw := bufio.NewWriterSize(env.Stdout, 256<<10)
	out := &scanWriter{w: bw, format: format, show: show}
	onResult := out.write
	// Recording streams each trace's metrics into the store as it is
	// scanned (the run stays "running" until the scan ends), so memory stays
	// flat however large the input.
	var rec *store.RunWriter
	if record {
		st, err := env.OpenStore(c.Context)
		if err != nil {
			return err
		}
		defer st.Close()
		if rec, err = st.BeginRun(c.Context, agentleak.RunHead(evalKey, time.Now(), inputs)); err != nil {
			return diag.Internal(err)
		}
		var keys agentleak.TaskKeys
		onResult = func(r *agentleak.Result) error {
			if err := out.write(r); err != nil {
				return err
			}
			return rec.Add(c.Context, agentleak.ResultOf(keys.Next(r.ScenarioID, r.RunID), r))
		}
	}
	job := &agentleak.Job{Scanner: sc, KeepGoing: c.Bool("keep-going"), Workers: c.Int("workers"), OnResult: onResult}
	sum, runErr := job.Run(c.Context, inputs)
	if err := out.close(); err != nil {
		return diag.Internal(err)
	}
	if err := bw.Flush(); err != nil {
		return diag.Internal(err)
	}
	if rec != nil {
		if sum == nil || sum.Traces == 0 || (runErr != nil && !job.KeepGoing) {
			if err := rec.Abort(c.Context); err != nil {
				return diag.Internal(err)
			}
		} else {
			if err := rec.Finish(c.Context, model.StatusCompleted); err != nil {
				return diag.Internal(err)
			}
			fmt.Fprintf(env.Stderr, "recorded run %s of evaluation %s (%d result%s)\n", rec.ID(), evalKey, rec.Written(), plural(rec.Written()))
		}
	}
	if sum == nil || (runErr != nil && !job.KeepGoing) {
		return runErr
	}
	if format == "table" {
		fmt.Fprintf(env.Stdout, "%d trace%s scanned, %d blocked\n", sum.Traces, plural(sum.Traces), sum.Blocked)
	}
	if runErr != nil {
		return runErr
	}
	if sum.Blocked > 0 {
		return diag.Gatef("%d of %d trace%s blocked", sum.Blocked, sum.Traces, plural(sum.Traces))
	}
	return nil
}

func alAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func loadVaultArgs(env *Env, args []string) (*agentleak.Vaults, error) {
	if len(args) == 0 {
		return nil, nil
	}
	var paths, displays []string
	for _, a := range args {
		ins, err := agentleak.ExpandVaultPaths(a)
		if err != nil {
			return nil, err
		}
		for _, p := range ins {
			paths = append(paths, p)
			displays = append(displays, env.Rel(alAbs(p)))
		}
	}
	vs, warns, err := agentleak.LoadVaults(paths, displays)
	if err == nil {
		printWarnings(env, warns)
	}
	return vs, err
}

// scanWriter prints each result as it comes, so that memory stays flat.
type scanWriter struct {
	w      io.Writer
	format string
	show   bool
	n      int
}

func (s *scanWriter) write(r *agentleak.Result) error {
	agentleak.RedactFindings(r, s.show)
	defer func() { s.n++ }()
	switch s.format {
	case "jsonl":
		return report.JSONLine(s.w, r)
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
	fmt.Fprintf(s.w, "== %s (run %s, %d events)\n", r.ScenarioID, r.RunID, r.Events)
	if err := report.Table(s.w, []string{"risk index", "privacy score", "verdict", "leaked / detected", "blocked"}, [][]string{{
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
		if err := report.Table(s.w, []string{"channel", "risk index"}, rows); err != nil {
			return err
		}
	}
	if v := r.Vault; v != nil {
		line := fmt.Sprintf("vault %s: %d of %d fields leaked (%.1f%%), %d canar%s leaked", v.Key, v.FieldsLeaked, v.Fields, 100*v.LeakShare, v.CanariesHit, map[bool]string{true: "y", false: "ies"}[v.CanariesHit == 1])
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
		return report.Table(s.w, []string{"event", "channel", "data type", "level", "detector", "value"}, rows)
	}
	fmt.Fprintln(s.w, "no leaks")
	return nil
}
