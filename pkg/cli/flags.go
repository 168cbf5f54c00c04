package cli

import (
	"os"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
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

// writeReport writes v to standard output in format through output.New;
// tables fit the terminal width when standard output is a terminal.
func (e *Env) writeReport(format string, v any) error {
	width := 0
	if f, ok := e.Stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			width = w
		}
	}
	w, err := output.New(format, e.Stdout, output.Options{Width: width})
	if err != nil {
		return diag.Usagef("%v", err)
	}
	if err := w.Write(v); err != nil {
		return err
	}
	return w.Close()
}
