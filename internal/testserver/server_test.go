package testserver

import "testing"

// TestFreePortsDistinct: the ports of one call are never one another's.
func TestFreePortsDistinct(t *testing.T) {
	for range 50 {
		ports := FreePorts(t, 6)
		seen := map[int]bool{}
		for _, p := range ports {
			if p <= 0 || seen[p] {
				t.Fatalf("FreePorts = %v: want 6 distinct ports", ports)
			}
			seen[p] = true
		}
	}
}
