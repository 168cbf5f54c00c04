package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
)

// gcCommand is `lf gc`: remove the runs of writers that died mid-run and,
// with --compact, give the freed space back.
func gcCommand(env *Env) *ucli.Command {
	return &ucli.Command{
		Name:  "gc",
		Usage: "remove abandoned runs (a recording killed mid-run) from the store; --compact also shrinks the file",
		Description: "A recording run (an AgentLeak scan, say) notes its process id, host and a heartbeat.\n" +
			"A run still marked running whose process is gone (on this host) or silent for a day (elsewhere)\n" +
			"is abandoned: gc removes it with its metric values. Every command that writes does the same first.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "compact", Usage: "rewrite the store file to give deleted space back"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 0 {
				return diag.Usagef("gc takes no arguments")
			}
			if err := env.checkProject(); err != nil {
				return err
			}
			st, err := env.OpenExistingStore(c.Context)
			if err != nil {
				return err
			}
			defer st.Close()
			res, err := st.CollectGarbage(c.Context)
			if err != nil {
				return diag.Internal(err)
			}
			for _, r := range res.Runs {
				fmt.Fprintf(env.Stdout, "removed abandoned run %s\n", r)
			}
			fmt.Fprintf(env.Stdout, "%d abandoned run%s removed (%d metric value%s)\n",
				len(res.Runs), plural(len(res.Runs)), res.Values, plural(int(res.Values)))
			if c.Bool("compact") {
				before := st.Size()
				if err := st.Compact(c.Context); err != nil {
					return diag.Internal(err)
				}
				fmt.Fprintf(env.Stdout, "compacted the store: %d bytes before, %d after\n", before, st.Size())
			}
			return nil
		},
	}
}
