//go:build !unix

package cputime

import "time"

// Process is unknown here: 0 (rates per CPU second are then omitted).
func Process() time.Duration { return 0 }

// Read is unknown here: zero.
func Read() Usage { return Usage{} }
