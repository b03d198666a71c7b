package app

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/spf13/pflag"
)

// TestEmbedIntegerProducts: the flag runs the built-in model with integer
// products, whose vectors differ slightly from the exact model's and stay
// within its cosine bound.
func TestEmbedIntegerProducts(t *testing.T) {
	embed := func(integer bool) []float32 {
		t.Helper()
		var cfg Config
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		cfg.RegisterFlags(fs, "")
		args := []string{"--data-dir", t.TempDir()}
		if integer {
			args = append(args, "--embed-integer-products")
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := a.initUsage(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := a.initModel(ctx); err != nil {
			t.Fatal(err)
		}
		vecs, err := a.model.Embed(ctx, []string{"The staging database lives on db-stage-2"})
		if err != nil {
			t.Fatal(err)
		}
		return vecs[0]
	}
	exact, approx := embed(false), embed(true)
	var dot, diff float64
	for i := range exact {
		dot += float64(exact[i]) * float64(approx[i])
		diff = math.Max(diff, math.Abs(float64(exact[i]-approx[i])))
	}
	if diff == 0 {
		t.Fatal("--embed-integer-products gave the exact model's vector: the option is not applied")
	}
	if dot < 0.9995 {
		t.Errorf("cosine to the exact vector %.6f, want >= 0.9995", dot)
	}
}
