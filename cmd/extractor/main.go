// Command extractor runs Recollect's extractor module alone, for split deployments.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ModuleMain("extractor", os.Args[1:])) }
