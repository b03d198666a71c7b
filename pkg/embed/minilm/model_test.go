package minilm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
)

// precisionModels loads the model once per test binary in each weight
// format.
var precisionModels = map[precision]func() (*Model, error){
	precF32: sync.OnceValues(func() (*Model, error) { return load(kernels()[0], precF32) }),
	precF16: sync.OnceValues(func() (*Model, error) { return load(kernels()[0], precF16) }),
	precInt: sync.OnceValues(func() (*Model, error) { return load(kernels()[0], precInt) }),
}

func testModelPrecision(t testing.TB, prec precision) *Model {
	t.Helper()
	m, err := precisionModels[prec]()
	if err != nil {
		t.Fatalf("load %s: %v", prec, err)
	}
	return m
}

// testModel is the model as Load builds it, loaded once per test binary.
func testModel(t testing.TB) *Model {
	t.Helper()
	return testModelPrecision(t, defaultPrecision)
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// goldenCases were measured with the reference (sentence-transformers)
// implementation.
var goldenCases = []struct {
	a, b string
	want float64
}{
	{"How do I build the project?", "npm run build compiles TypeScript to dist/", 0.2185},
	{"How do I build the project?", "User prefers tabs over spaces", -0.1002},
	{"That is a happy person", "That is a very happy person", 0.9429},
}

func TestGoldenSimilarities(t *testing.T) {
	m := testModel(t)
	for _, c := range goldenCases {
		t.Run(c.a+"|"+c.b, func(t *testing.T) {
			v, err := m.Embed(context.Background(), []string{c.a, c.b})
			if err != nil {
				t.Fatal(err)
			}
			if got := dot(v[0], v[1]); math.Abs(got-c.want) > 0.001 {
				t.Errorf("cos = %.4f, want %.4f ± 0.001", got, c.want)
			}
		})
	}
}

func TestEmbedUnitNorm(t *testing.T) {
	m := testModel(t)
	texts := []string{"", "a", "How do I build the project?", strings.Repeat("long text with many words ", 80), "你好, 世界"}
	v, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(v), len(texts))
	}
	for i, vec := range v {
		if len(vec) != m.Dim() {
			t.Fatalf("text %d: dim %d, want %d", i, len(vec), m.Dim())
		}
		if n := math.Sqrt(dot(vec, vec)); math.Abs(n-1) > 1e-5 {
			t.Errorf("text %d: norm %.7f, want 1", i, n)
		}
	}
}

func TestEmbedAloneEqualsInBatch(t *testing.T) {
	m := testModel(t)
	target := "That is a happy person"
	batch := []string{
		strings.Repeat("a much longer sentence that forces padding in a batch ", 6),
		"short",
		target,
		"",
		"How do I build the project? npm run build compiles TypeScript to dist/",
	}
	alone, err := m.Embed(context.Background(), []string{target})
	if err != nil {
		t.Fatal(err)
	}
	together, err := m.Embed(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	for i := range alone[0] {
		if d := math.Abs(float64(alone[0][i] - together[2][i])); d > 1e-5 {
			t.Fatalf("dim %d: alone %g, in batch %g", i, alone[0][i], together[2][i])
		}
	}
}

func TestEmbedEmpty(t *testing.T) {
	m := testModel(t)
	v, err := m.Embed(context.Background(), nil)
	if err != nil || len(v) != 0 {
		t.Fatalf("Embed(nil) = %d vectors, %v", len(v), err)
	}
	v, err = m.Embed(context.Background(), []string{""})
	if err != nil {
		t.Fatal(err)
	}
	if n := dot(v[0], v[0]); math.Abs(n-1) > 1e-5 {
		t.Errorf("empty text: squared norm %g, want 1", n)
	}
}

func TestEmbedCancelled(t *testing.T) {
	m := testModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestModelInfo(t *testing.T) {
	m := testModel(t)
	if m.Dim() != 384 || m.Model() != "all-MiniLM-L6-v2" {
		t.Fatalf("Dim() = %d, Model() = %q", m.Dim(), m.Model())
	}
	if got := m.Tokens("How do I build the project?"); got != 9 {
		t.Errorf("Tokens = %d, want 9", got)
	}
	if got := m.Tokens(strings.Repeat("word ", 1000)); got != maxTokens {
		t.Errorf("Tokens(long) = %d, want %d", got, maxTokens)
	}
}

func TestEmbedMatchesReferenceVectors(t *testing.T) {
	m := testModel(t)
	// First dimensions from a float64 NumPy forward pass over the same
	// fp16 weights and reference token ids.
	cases := []struct {
		text string
		want []float64
	}{
		{"How do I build the project?", []float64{-0.041781, 0.026665, -0.022282, -0.036864, -0.024143, -0.040296, -0.025800, 0.046604}},
		{"That is a happy person", []float64{-0.033875, 0.092015, 0.048694, -0.034885, -0.064870, -0.026654, 0.134227, -0.006900}},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			v, err := m.Embed(t.Context(), []string{c.text})
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if math.Abs(float64(v[0][i])-w) > 1e-5 {
					t.Fatalf("dim %d = %.6f, want %.6f", i, v[0][i], w)
				}
			}
		})
	}
}

func TestEncodeParallelMatchesSerial(t *testing.T) {
	m := testModel(t)
	seqs := [][]int32{m.tok.encode(shortSentences[0]), m.tok.encode(strings.Repeat("long words here ", 30)), m.tok.encode("")}
	serial, parallel := make([][]float32, len(seqs)), make([][]float32, len(seqs))
	for i := range seqs {
		serial[i], parallel[i] = make([]float32, Dim), make([]float32, Dim)
	}
	m.enc.encode(&workspace{}, 1, seqs, serial)
	m.enc.encode(&workspace{}, 3, seqs, parallel)
	for i := range seqs {
		for d := range serial[i] {
			if serial[i][d] != parallel[i][d] {
				t.Fatalf("seq %d dim %d: serial %g, parallel %g", i, d, serial[i][d], parallel[i][d])
			}
		}
	}
}

func TestEmbedConcurrent(t *testing.T) {
	m := testModel(t)
	want, err := m.Embed(t.Context(), shortSentences[:8])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			texts := shortSentences[:8]
			if g%2 == 1 {
				texts = texts[:1] // single texts take the shared-product path
			}
			got, err := m.Embed(t.Context(), texts)
			if err != nil {
				errs <- err
				return
			}
			for i := range got {
				for d := range got[i] {
					if math.Abs(float64(got[i][d]-want[i][d])) > 1e-5 {
						errs <- fmt.Errorf("goroutine %d text %d dim %d: %g, want %g", g, i, d, got[i][d], want[i][d])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestF16WeightsMatchF32 checks that the default fp16 weights give the
// float32 weights' vectors to the bit, for short and long texts.
func TestF16WeightsMatchF32(t *testing.T) {
	texts := append([]string{strings.Repeat("long text with many words ", 60)}, shortSentences[:20]...)
	want, err := testModelPrecision(t, precF32).Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := testModelPrecision(t, precF16).Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		for d := range want[i] {
			if want[i][d] != got[i][d] {
				t.Fatalf("text %d dim %d: f32 %g, f16 %g", i, d, want[i][d], got[i][d])
			}
		}
	}
}
