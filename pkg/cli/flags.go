package cli

import (
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/lfcli/lf/pkg/diag"
)

// outputFlag is the -o flag shared by commands that print results.
func outputFlag(def string, formats ...string) ucli.Flag {
	return &ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: def, Usage: "output `FORMAT`: " + strings.Join(formats, ", ")}
}

// outputFormat reads -o and checks it is one of formats.
func outputFormat(c *ucli.Context, formats ...string) (string, error) {
	f := c.String("output")
	for _, x := range formats {
		if f == x {
			return f, nil
		}
	}
	return "", diag.Usagef("unknown output format %q: use %s", f, strings.Join(formats, ", "))
}

func sortStrings(s []string) { sort.Strings(s) }
