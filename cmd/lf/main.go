// Command lf is a command-line tool for AI risk evaluation.
package main

import (
	"os"

	_ "github.com/lfcli/lf/cmd/internal/hugepages" // huge pages for the heap: see the package's doc
	"github.com/lfcli/lf/pkg/cli"
)

func main() {
	os.Exit(cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
