// Command recollect runs Recollect's modules (all of them in one process by
// default) and its client and operator subcommands. Run under a module's
// name (a symlink ingest → recollect, as in the container image), it
// behaves exactly like that module's own binary, cmd/<module>.
package main

import (
	"os"

	"github.com/recollect-dev/recollect/pkg/cli"
)

func main() { os.Exit(cli.ProgramMain(os.Args)) }
