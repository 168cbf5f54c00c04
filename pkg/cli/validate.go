package cli

import (
	"fmt"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/progress"
	"github.com/lfcli/lf/pkg/project"
)

func validateCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "validate",
		Usage:     "check project files: schema, references, functions, configs",
		ArgsUsage: "[PATH...]",
		Description: "PATH is a file, a folder, a glob or -; default: the whole project (lf.yaml's include:\n" +
			"and exclude: globs; without include:, the YAML files whose top-level keys are lf's).\n" +
			"Every problem is reported as FILE:LINE:COL: /json/pointer: message, then a count; exit 3 when any.\n" +
			"Methodologies are looked up in the files checked and in the store, when it exists.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on standard error (also LF_QUIET=1)"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				if _, err := os.Stat(filepath.Join(env.ProjectDir(), project.MarkerFile)); err != nil {
					return diag.Usagef("no lf project here: no %s in this folder or above; run `lf init`, or name the files to check", project.MarkerFile)
				}
			}
			var stored map[string]*model.Methodology
			if path := env.StoreURL(); storeExists(path) {
				// validate only reads: the store as it is, app scoped, never created
				st, err := env.openForReading(c.Context)
				if err == nil {
					st, err = env.useApp(c.Context, st)
				}
				if err != nil {
					return err
				}
				stored, err = st.Methodologies(c.Context)
				st.Close()
				if err != nil {
					return diag.Internal(err)
				}
			}
			// Progress in bytes checked, on a terminal, for validations longer than a second.
			bar := progress.New(env.Stderr, progress.Options{Description: "validating files", Bytes: true, Total: -1, Quiet: c.Bool("quiet") || progress.Quiet(env.Getenv)})
			res := project.ValidateWith(env.ProjectDir(), c.Args().Slice(), env.Stdin, stored, project.ValidateOptions{Kinds: fileKinds, OnFile: func(path string) {
				if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
					bar.Add(st.Size())
				}
			}})
			bar.Finish()
			if res.Err != nil {
				return res.Err
			}
			if res.Diags.HasErrors() {
				return diag.Invalid(res.Diags)
			}
			printWarnings(env, res.Diags)
			fmt.Fprintf(env.Stdout, "%d file%s valid, %d entit%s\n", res.Files, plural(res.Files), res.Entities, map[bool]string{true: "y", false: "ies"}[res.Entities == 1])
			return nil
		},
	}
}

func storeExists(url string) bool {
	_, err := os.Stat(url)
	return err == nil
}
