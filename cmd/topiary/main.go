// Command topiary runs Recollect's topiary module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("topiary", os.Args[1:])) }
