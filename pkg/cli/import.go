package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/importers"
	"github.com/lfcli/lf/pkg/progress"
)

// importCommand is lf import: result files of other evaluation tools as runs.
func importCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "import",
		Usage:     "store the result files of promptfoo, Inspect AI, lm-evaluation-harness, garak, HELM, DeepEval or RAGAS as evaluation runs",
		ArgsUsage: "[FORMAT] PATH...",
		Description: "FORMAT is promptfoo, inspect, lm-eval, garak, helm, deepeval or ragas; without it the format is\n" +
			"detected from each file's content and printed. PATH is a result file, a HELM run or suite folder, or -\n" +
			"for standard input.\n" +
			"Each run is upserted by its evaluation key and id: importing the same file twice changes nothing.\n" +
			"Values that cannot be stored (NaN, \"N/A\", a rate over 0 items) are skipped with a warning;\n" +
			"a file whose completed run keeps no value at all is refused (exit 3).\n" +
			"A file that is not its format, or is cut short, stores nothing; the others are still imported.\n" +
			"Exit codes: 0 every file imported, 3 a file could not be imported or kept no value (invalid input),\n" +
			"2 usage (a mistyped FORMAT too), 4 store.\n" +
			"See docs/importers.md for each format's mapping.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "evaluation-key", Usage: "store every run under `KEY` instead of the key derived from the file"},
			&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress and no \"detected format\" lines on standard error (also LF_QUIET=1); warnings and errors are still shown"},
		},
		Action: func(c *ucli.Context) error { return runImport(c, env) },
	}
}

// runImport is the action of lf import: it checks the arguments, imports
// every path into the store with a progress bar and reports the outcome.
func runImport(c *ucli.Context, env *Env) error {
	format, args, err := importArgs(c.Args().Slice())
	if err != nil {
		return err
	}
	key := c.String("evaluation-key")
	if key != "" && !importers.ValidKey(key) {
		return diag.Usagef("--evaluation-key %q: keys match ^[a-zA-Z0-9_\\-]+$", key)
	}
	st, err := env.OpenStore(c.Context)
	if err != nil {
		return err
	}
	defer st.Close()
	// Progress in bytes imported, on a terminal, for imports longer than a second.
	quiet := c.Bool("quiet") || progress.Quiet(env.Getenv)
	bar := progress.New(env.Stderr, progress.Options{Description: "importing results", Bytes: true, Total: -1, Quiet: quiet})
	var total int64
	for _, p := range args {
		total += pathBytes(p)
	}
	if total > 0 {
		bar.SetTotal(total)
	}
	res, err := importers.ImportToStore(c.Context, st, format, args, importers.Options{
		EvaluationKey: key, Stdin: env.Stdin,
		OnFile: func(p string) { bar.Add(pathBytes(p)) },
	})
	bar.Finish()
	failed := reportImport(env, res, quiet)
	if err != nil {
		return diag.Internal(err)
	}
	fmt.Fprintf(env.Stdout, "%d created, %d updated, %d unchanged\n", res.Created, res.Updated, res.Unchanged)
	if len(failed) > 0 {
		return diag.Invalid(failed)
	}
	return nil
}

// importArgs splits the arguments of lf import into the optional FORMAT
// (zero when the format is to be detected) and the paths.
func importArgs(args []string) (importers.Format, []string, error) {
	var format importers.Format
	if len(args) == 0 {
		return format, nil, diag.Usagef("lf import [FORMAT] PATH...: give at least one result file")
	}
	f, err := importers.ParseFormat(args[0])
	if err == nil {
		if len(args) == 1 {
			if _, statErr := os.Stat(args[0]); statErr != nil {
				return format, nil, diag.Usagef("lf import %s PATH...: give at least one result file", args[0])
			}
		} else {
			format, args = f, args[1:]
		}
		return format, args, nil
	}
	// A first word that is neither a format nor a path, followed by paths,
	// is a mistyped format: refuse it before anything is read or written.
	if _, statErr := os.Stat(args[0]); statErr != nil && len(args) > 1 && args[0] != "-" {
		return format, nil, diag.Usagef("%q is neither a format nor a file: %v", args[0], err)
	}
	return format, args, nil
}

// reportImport prints, per file, the detected format (not when quiet), the
// warnings, the runs stored and the values skipped, and returns the errors.
func reportImport(env *Env, res importers.Result, quiet bool) diag.List {
	var failed diag.List
	for i, f := range res.Files {
		if f.Detected && !quiet {
			fmt.Fprintf(env.Stderr, "%s: detected format %s\n", f.Path, f.Format)
		}
		for _, d := range f.Diagnostics {
			if d.Severity == diag.SevError {
				failed = append(failed, d)
			} else {
				fmt.Fprintln(env.Stderr, d.String())
			}
		}
		for j, r := range f.Runs {
			fmt.Fprintf(env.Stdout, "%s evaluation-run %s/%s (%s: %s, %s)\n",
				res.RunOutcome(i, j), r.EvaluationKey, r.ID, f.Format, count(r.Results, "result", "results"), count(r.Metrics, "value", "values"))
		}
		if f.Skipped > 0 {
			fmt.Fprintf(env.Stderr, "%s: %s skipped (see the warnings)\n", f.Path, count(f.Skipped, "value", "values"))
		}
	}
	return failed
}

// pathBytes is the size of a result file, or of the files in a HELM run
// folder; 0 for standard input or a path that cannot be read.
func pathBytes(path string) int64 {
	if path == "-" {
		return 0
	}
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
