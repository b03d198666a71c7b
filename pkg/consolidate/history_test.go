package consolidate

import (
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/memory"
)

func TestEpochStarts(t *testing.T) {
	f := newFixture(t, "")
	kv, err := OpenHistory(t.Context(), f.c.bus.JetStream())
	if err != nil {
		t.Fatal(err)
	}
	if starts, err := EpochStarts(t.Context(), kv, tenant); err != nil || starts != nil {
		t.Fatalf("before any epoch: %v, %v; want none", starts, err)
	}
	f.put(t, f.mem("The user deploys on Fridays.", memory.TypeFact, memory.SourceAPI))
	var want []time.Time
	for range 3 {
		want = append(want, f.clock.now())
		f.epoch(t)
		f.clock.add(time.Hour)
	}
	starts, err := EpochStarts(t.Context(), kv, tenant)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(starts, want, time.Time.Equal) {
		t.Fatalf("starts %v, want %v (oldest first)", starts, want)
	}
	if starts, err := EpochStarts(t.Context(), kv, "other"); err != nil || starts != nil {
		t.Fatalf("another tenant: %v, %v; want none", starts, err)
	}
	if _, err := kv.Put(t.Context(), "broken", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	if _, err := EpochStarts(t.Context(), kv, "broken"); err == nil {
		t.Fatal("a broken history decoded without error")
	}
}
