package usagetest

import (
	"testing"

	"github.com/recollect-dev/recollect/pkg/usage"
)

func TestMemory(t *testing.T) {
	Run(t, func(t *testing.T) (usage.Writer, usage.Reader) {
		m := NewMemory()
		return m, m
	})
}
