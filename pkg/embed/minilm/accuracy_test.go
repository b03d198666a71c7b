package minilm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// variedTexts returns n deterministic texts unlike each other in length
// (2 to ~200 tokens), topic and form: facts, questions, code, numbers,
// other languages and multi-sentence paragraphs.
func variedTexts(n int) []string {
	r := rand.New(rand.NewPCG(14, 2))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	people := []string{"Alice", "Bob", "Carol", "Dave", "the user", "my sister", "our manager", "the new intern", "Priya", "Jürgen"}
	verbs := []string{"prefers", "dislikes", "is learning", "maintains", "wrote", "reviewed", "deployed", "forgot about", "recommended", "is allergic to"}
	things := []string{"dark mode", "the billing service", "Rust", "peanuts", "the staging cluster", "long meetings", "vim keybindings",
		"the quarterly report", "a trip to Lisbon", "jazz records", "the Postgres migration", "sourdough bread", "TypeScript generics"}
	when := []string{"", " last week", " every Monday", " since 2019", " after the outage", " on weekends", " yesterday at 5pm"}
	questions := []string{"What does %s prefer?", "When did %s deploy the fix?", "Who maintains %s?", "Why is %s failing again?",
		"How do I configure %s?", "Where is %s documented?", "Is %s still in use?"}
	code := []string{"func main() { fmt.Println(\"hello\") }", "SELECT id, name FROM users WHERE active = true;",
		"kubectl rollout restart deployment/api -n prod", "git rebase -i HEAD~3", "x := make([]float32, 384)",
		"if err != nil { return fmt.Errorf(\"open: %w\", err) }", "npm install --save-dev vitest@2.1.0"}
	other := []string{"Il pleut à Paris depuis trois jours.", "Der Zug nach München hat zwanzig Minuten Verspätung.",
		"我们明天早上九点开会。", "El informe trimestral está casi terminado.", "東京の天気は晴れです。", "Ça va très bien, merci !"}
	sentence := func() string {
		s := pick(people) + " " + pick(verbs) + " " + pick(things) + pick(when) + "."
		return strings.ToUpper(s[:1]) + s[1:]
	}
	texts := slices.Clone(shortSentences)
	for len(texts) < n {
		switch i := len(texts) % 8; i {
		case 0, 1, 2:
			texts = append(texts, sentence())
		case 3:
			texts = append(texts, fmt.Sprintf(pick(questions), pick(things)))
		case 4:
			texts = append(texts, pick(code))
		case 5:
			texts = append(texts, fmt.Sprintf("Order #%d shipped on %d-%02d-%02d for $%d.%02d", r.IntN(99999), 2020+r.IntN(6), 1+r.IntN(12), 1+r.IntN(28), r.IntN(500), r.IntN(100)))
		case 6:
			texts = append(texts, pick(other))
		default:
			var b strings.Builder
			for range 2 + r.IntN(12) {
				b.WriteString(sentence())
				b.WriteByte(' ')
			}
			texts = append(texts, strings.TrimSpace(b.String()))
		}
	}
	return texts[:n]
}

// TestIntAccuracy bounds the integer model (IntegerProducts) against the
// float32 one on 400 varied texts: the cosine of each pair of vectors, and
// the overlap of the top 10 that 40 queries retrieve from the other 360
// texts. Measured on this set: min cosine 0.99990, mean 0.99997; top-10
// overlap mean 0.983, min 9/10 (the misses are near-ties at rank 10).
func TestIntAccuracy(t *testing.T) {
	texts := variedTexts(400)
	ref, err := testModelPrecision(t, precF32).Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := testModelPrecision(t, precInt).Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	lo, sum, worst := 1.0, 0.0, 0
	for i := range texts {
		c := dot(got[i], ref[i])
		sum += c
		if c < lo {
			lo, worst = c, i
		}
	}
	t.Logf("cosine(int, f32) over %d texts: min %.5f (%q), mean %.5f", len(texts), lo, texts[worst], sum/float64(len(texts)))
	if lo < 0.9995 {
		t.Errorf("min cosine %.5f < 0.9995", lo)
	}

	queries, corpus := 40, texts[40:]
	topk := func(vecs [][]float32, q int) []int {
		idx := make([]int, len(corpus))
		for i := range idx {
			idx[i] = i
		}
		score := func(i int) float64 { return dot(vecs[q], vecs[40+i]) }
		sort.SliceStable(idx, func(a, b int) bool { return score(idx[a]) > score(idx[b]) })
		return idx[:10]
	}
	total, least := 0, 10
	for q := range queries {
		want, have := topk(ref, q), topk(got, q)
		n := 0
		for _, i := range have {
			if slices.Contains(want, i) {
				n++
			}
		}
		total += n
		least = min(least, n)
	}
	mean := float64(total) / float64(10*queries)
	t.Logf("top-10 overlap over %d queries: mean %.3f, min %d/10", queries, mean, least)
	if mean < 0.95 || least < 8 {
		t.Errorf("top-10 overlap mean %.3f (want ≥ 0.95), min %d/10 (want ≥ 8)", mean, least)
	}
}

// TestIntGoldenSimilarities checks the reference cosines of
// TestGoldenSimilarities on the integer model, to the same ±0.001.
func TestIntGoldenSimilarities(t *testing.T) {
	m := testModelPrecision(t, precInt)
	for _, c := range goldenCases {
		v, err := m.Embed(t.Context(), []string{c.a, c.b})
		if err != nil {
			t.Fatal(err)
		}
		if got := dot(v[0], v[1]); math.Abs(got-c.want) > 0.001 {
			t.Errorf("%q · %q: cos = %.4f, want %.4f ± 0.001", c.a, c.b, got, c.want)
		}
	}
}

// TestIntLoadOption checks that Load(IntegerProducts()) builds the integer
// model.
func TestIntLoadOption(t *testing.T) {
	m, err := Load(IntegerProducts())
	if err != nil {
		t.Fatal(err)
	}
	if l := m.enc.w.layers[0].qkv; l.q == nil || l.h != nil || l.w != nil {
		t.Fatal("IntegerProducts: layer 0 is not integer")
	}
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if l := d.enc.w.layers[0].qkv; l.h == nil || l.q != nil {
		t.Fatal("Load(): layer 0 is not fp16")
	}
}
