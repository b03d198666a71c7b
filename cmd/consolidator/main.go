// Command consolidator runs Recollect's consolidator module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("consolidator", os.Args[1:])) }
