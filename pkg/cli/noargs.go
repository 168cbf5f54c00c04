package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
)

// refuseExtraArgs makes a command that declares no arguments (no
// ArgsUsage) refuse any: `lf overview risk-scorers typo` is a usage error,
// not the overview of every scorer.
func refuseExtraArgs(c *ucli.Command) {
	if c.Action == nil || c.ArgsUsage != "" {
		return
	}
	act := c.Action
	c.Action = func(ctx *ucli.Context) error {
		if ctx.NArg() > 0 {
			return diag.Usagef("%s takes no arguments, got %q; see %s --help", ctx.Command.HelpName, ctx.Args().First(), ctx.Command.HelpName)
		}
		return act(ctx)
	}
}
