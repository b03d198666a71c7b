//go:build !unix

package cli

import "time"

// processCPU is unknown here (0): rates per CPU second are then omitted.
func processCPU() time.Duration { return 0 }
