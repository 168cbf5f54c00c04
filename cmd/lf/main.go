// Command lf is a command-line tool for AI risk evaluation.
package main

import (
	"os"

	"github.com/lfcli/lf/pkg/cli"
	_ "github.com/lfcli/lf/pkg/hugepages" // huge pages for the heap: see the package's doc
)

func main() {
	os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
