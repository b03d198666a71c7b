// Command ingest runs Recollect's ingest module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("ingest", os.Args[1:])) }
