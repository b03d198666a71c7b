package app

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/spf13/pflag"
)

// modelVectors starts the model module with args and embeds text through
// its document model, its query model and its import model.
func modelVectors(t *testing.T, text string, args ...string) (doc, query, imported []float32) {
	t.Helper()
	var cfg Config
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	cfg.RegisterFlags(fs, "")
	// No cache: it would hand the query model the document model's vector
	// of the same text (both are one model by name, so that is allowed).
	if err := fs.Parse(append([]string{"--data-dir", t.TempDir(), "--embed-cache", "off"}, args...)); err != nil {
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
	d, err := a.model.Embed(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	q, err := a.queryModel.Embed(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	im, err := a.importModel.Embed(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return d[0], q[0], im[0]
}

// cosineDiff is the cosine of two unit vectors and their largest
// component difference.
func cosineDiff(a, b []float32) (dot, diff float64) {
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		diff = math.Max(diff, math.Abs(float64(a[i]-b[i])))
	}
	return dot, diff
}

// TestEmbedIntegerProducts: --embed-integer-products runs the built-in
// model with integer products for documents and queries, whose vectors
// differ slightly from the exact model's and stay within its cosine bound;
// by default documents are embedded exactly and queries with integer
// products (--query-integer-products), and with that flag off both exactly.
// Imported memories without vectors are stored: they are embedded as
// documents are.
func TestEmbedIntegerProducts(t *testing.T) {
	const text = "The staging database lives on db-stage-2"
	exactDoc, intQuery, exactImport := modelVectors(t, text)
	intDoc, intQuery2, intImport := modelVectors(t, text, "--embed-integer-products")
	exactDoc2, exactQuery, exactImport2 := modelVectors(t, text, "--query-integer-products=false")

	for name, pair := range map[string][2][]float32{"default": {exactDoc, exactImport},
		"--embed-integer-products": {intDoc, intImport}, "--query-integer-products=false": {exactDoc2, exactImport2}} {
		if _, diff := cosineDiff(pair[0], pair[1]); diff != 0 {
			t.Errorf("%s: an imported memory is embedded unlike a stored one", name)
		}
	}

	if dot, diff := cosineDiff(exactDoc, exactDoc2); diff != 0 {
		t.Fatalf("documents differ with --query-integer-products off (cosine %.6f): the flag reached the document model", dot)
	}
	if _, diff := cosineDiff(exactDoc, exactQuery); diff != 0 {
		t.Fatal("--query-integer-products=false: the query model is not the exact one")
	}
	for name, approx := range map[string][]float32{"documents with --embed-integer-products": intDoc,
		"queries by default": intQuery, "queries with --embed-integer-products": intQuery2} {
		dot, diff := cosineDiff(exactDoc, approx)
		if diff == 0 {
			t.Errorf("%s: got the exact model's vector, the integer products are not applied", name)
		}
		if dot < 0.9995 {
			t.Errorf("%s: cosine to the exact vector %.6f, want >= 0.9995", name, dot)
		}
	}
}
