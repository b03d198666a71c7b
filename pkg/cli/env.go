package cli

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/config"
)

// applyEnv fills unset flags of a client command from RECOLLECT_* variables.
func applyEnv(fs *pflag.FlagSet) error {
	return config.Apply(fs, "", os.LookupEnv)
}
