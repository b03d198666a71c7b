// Command embedder runs Recollect's embedder module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("embedder", os.Args[1:])) }
