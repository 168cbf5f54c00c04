package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/project"
)

func initCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:      "init",
		Usage:     "scaffold a project: lf.yaml, a methodology, a risk scorer, an evaluation run, a run file",
		ArgsUsage: "[DIR]",
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return diag.Usagef("init takes at most one DIR")
			}
			dir := "."
			if c.NArg() == 1 {
				dir = c.Args().First()
			}
			written, err := project.Init(dir)
			if err != nil {
				return err
			}
			schemaFiles, err := withSchemas(dir, written)
			if err != nil {
				return diag.IOf("cannot write the editor schemas into %s: %v", dir, pathErr(err))
			}
			for _, p := range append(written, schemaFiles...) {
				fmt.Fprintf(env.Stdout, "wrote %s\n", p)
			}
			fmt.Fprintf(env.Stdout, "next: lf --project %s run -f %s/run.yaml\n", dir, dir)
			return nil
		},
	}
}
