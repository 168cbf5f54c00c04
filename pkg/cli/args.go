package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// interspersed moves the flags of the final command in args before its
// positional arguments, so that `lf add risk-scorer -f x.yaml` and
// `lf agentleak scan trace.jsonl -o json` work: urfave/cli v2 stops reading
// flags at the first positional argument. Everything after "--" stays
// positional.
func interspersed(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	flags := app.Flags
	i := 1
	var pending []string
	// Walk down the command chain: global and intermediate flags stay where they are.
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if !defined(flags, a) && len(cmds) > 0 {
				// A flag of a subcommand given before it (lf overview -o json
				// risk-scorers): move it to the final command. Its value is the
				// next word unless that word is a subcommand or a flag.
				pending = append(pending, a)
				if i+1 < len(args) && !strings.Contains(a, "=") && !strings.HasPrefix(args[i+1], "-") && findCommand(cmds, args[i+1]) == nil {
					pending = append(pending, args[i+1])
					i++
				}
				i++
				continue
			}
			out = append(out, a)
			if takesValue(flags, a) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			i++
			continue
		}
		c := findCommand(cmds, a)
		if c == nil {
			break
		}
		out = append(out, a)
		cmds, flags = c.Subcommands, c.Flags
		i++
	}
	// The final command: flags first, then positional arguments.
	fl := pending
	var pos []string
	for i < len(args) {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			fl = append(fl, a)
			if takesValue(flags, a) && i+1 < len(args) {
				fl = append(fl, args[i+1])
				i++
			}
		} else {
			pos = append(pos, a)
		}
		i++
	}
	out = append(out, fl...)
	return append(out, pos...)
}

func findCommand(cmds []*ucli.Command, name string) *ucli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// takesValue reports whether the flag token a (e.g. "-f", "--output") names a
// flag that reads the next argument as its value.
func takesValue(flags []ucli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	name := strings.TrimLeft(a, "-")
	if name == "h" || name == "help" {
		return false
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			switch f.(type) {
			case *ucli.BoolFlag:
				return false
			}
			return true
		}
	}
	return false
}

// defined reports whether the flag token a names one of flags (or help).
func defined(flags []ucli.Flag, a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if name == "h" || name == "help" || name == "version" || name == "v" {
		return true
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}
