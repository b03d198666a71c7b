package topics

import (
	"math"
	"testing"

	"github.com/spf13/pflag"
)

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Options)
		ok     bool
	}{
		{"defaults", func(*Options) {}, true},
		{"zero means default", func(o *Options) { *o = Options{} }, true},
		{"threshold over 1", func(o *Options) { o.MergeThreshold = 1.2 }, false},
		{"negative threshold", func(o *Options) { o.AssignThreshold = -0.1 }, false},
		{"NaN threshold", func(o *Options) { o.ParentThreshold = math.NaN() }, false},
		{"negative budget", func(o *Options) { o.LeafBudget = -1 }, false},
		{"one child", func(o *Options) { o.MaxChildren = 1 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.change(&o)
			if err := o.Validate(); (err == nil) != tc.ok {
				t.Fatalf("Validate() = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestOptionsFlags(t *testing.T) {
	var o Options
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.RegisterFlags("", fs)
	if o != DefaultOptions() {
		t.Fatalf("registered defaults %+v, want %+v", o, DefaultOptions())
	}
	if err := fs.Parse([]string{"--topics-merge-threshold=0.7", "--topics-leaf-budget=64"}); err != nil {
		t.Fatal(err)
	}
	if o.MergeThreshold != 0.7 || o.LeafBudget != 64 {
		t.Fatalf("parsed %+v", o)
	}
}

func TestOptionsWithDefaults(t *testing.T) {
	if got := (Options{}).withDefaults(); got != DefaultOptions() {
		t.Fatalf("zero options became %+v", got)
	}
	bad := Options{AssignThreshold: 7, MaxLeafSize: -3, MaxChildren: 1, LeafBudget: 10}
	got := bad.withDefaults()
	if got.AssignThreshold != 0.30 || got.MaxLeafSize != 8 || got.MaxChildren != 8 || got.LeafBudget != 10 {
		t.Fatalf("withDefaults = %+v", got)
	}
}
