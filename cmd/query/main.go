// Command query runs Recollect's query module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("query", os.Args[1:])) }
