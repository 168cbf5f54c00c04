// Command lf is a command-line tool for AI risk evaluation.
package main

import (
	"os"

	"github.com/lfcli/lf/pkg/cli"
)

func main() {
	os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
