// Command recollect runs Recollect's modules (all of them in one process by
// default) and its client and operator subcommands.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
