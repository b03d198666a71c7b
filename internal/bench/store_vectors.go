package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect-dev/recollect/internal/devchatgen"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
)

// Vector sources for bench store. Random unit vectors have no structure:
// their nearest neighbours are barely nearer than any other row, so no
// approximate index finds them without scanning most rows — the worst
// case, and not what users store. Text vectors are built from real
// embeddings: each is a normalised mix of two or three embedded sentences
// (the DevChat set's turns, split into lines) plus a little noise, so they
// cluster as embeddings of related texts do, while any number of them
// can be made without embedding each.
const (
	VectorsRandom = "random"
	VectorsText   = "text"
	// textBaseMax caps the embedded base sentences.
	textBaseMax = 6000
	// textNoise is the standard deviation of the noise added per dimension
	// (about 0.3 in norm at 384 dims, against a mix of norm 1 to 2).
	textNoise = 0.015
)

// storeVectors makes memory i's and query q's vectors reproducibly.
type storeVectors interface {
	vector(i int, dst []float32)
	queryVector(q int) []float32
}

// newStoreVectors returns the source named kind ("random" or "text").
func newStoreVectors(ctx context.Context, c *corpus, kind string) (storeVectors, error) {
	switch kind {
	case VectorsRandom:
		return c, nil
	case VectorsText:
		base, err := textBase(ctx)
		if err != nil {
			return nil, err
		}
		return &textVectors{base: base}, nil
	}
	return nil, fmt.Errorf("--vectors must be %q or %q (got %q)", VectorsRandom, VectorsText, kind)
}

// textVectors mixes embedded sentences (base, unit vectors).
type textVectors struct{ base [][]float32 }

func (t *textVectors) vector(i int, dst []float32) {
	t.mix(rand.New(rand.NewPCG(seedVectors, uint64(i))), dst)
}

func (t *textVectors) queryVector(q int) []float32 {
	v := make([]float32, corpusDim)
	t.mix(rand.New(rand.NewPCG(seedQueries, uint64(q)|1<<62)), v)
	return v
}

// mix writes a normalised weighted sum of 2 or 3 random base vectors plus
// noise into dst.
func (t *textVectors) mix(r *rand.Rand, dst []float32) {
	clear(dst)
	for n := 2 + r.IntN(2); n > 0; n-- {
		w := float32(0.5 + r.Float64()/2)
		for j, x := range t.base[r.IntN(len(t.base))] {
			dst[j] += w * x
		}
	}
	var norm float64
	for j := range dst {
		dst[j] += float32(r.NormFloat64() * textNoise)
		norm += float64(dst[j]) * float64(dst[j])
	}
	inv := float32(1 / math.Sqrt(norm))
	for j := range dst {
		dst[j] *= inv
	}
}

// textBaseSentences are the DevChat set's turns, generated in process,
// split into distinct lines of at least 20 characters, up to textBaseMax.
func textBaseSentences() ([]string, error) {
	set, err := devchatgen.Generate(devchatgen.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("generate devchat texts: %w", err)
	}
	seen := make(map[string]bool)
	var out []string
	for _, c := range set.Conversations {
		for _, s := range c.Sessions {
			for _, turn := range s.Turns {
				for line := range strings.SplitSeq(turn.Text, "\n") {
					line = strings.TrimSpace(line)
					if len(line) < 20 || seen[line] {
						continue
					}
					seen[line] = true
					out = append(out, line)
					if len(out) == textBaseMax {
						return out, nil
					}
				}
			}
		}
	}
	return out, nil
}

// textBase embeds the base sentences with the built-in model, or reads
// them from the cache file a previous run left in the temporary directory
// (named by a hash of the sentences and the model).
func textBase(ctx context.Context) ([][]float32, error) {
	sents, err := textBaseSentences()
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	h.Write([]byte(minilm.ModelName))
	for _, s := range sents {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	path := filepath.Join(os.TempDir(), fmt.Sprintf("recollect-bench-store-base-%016x.f32", h.Sum64()))
	if base, ok := readBase(path, len(sents)); ok {
		return base, nil
	}
	m, err := minilm.Load()
	if err != nil {
		return nil, fmt.Errorf("load the embedding model: %w", err)
	}
	bar := phaseProgress(ctx, len(sents), "embedding base sentences", "sentences")
	defer bar.End()
	var base [][]float32
	for lo := 0; lo < len(sents); lo += 256 {
		vs, err := m.Embed(ctx, sents[lo:min(len(sents), lo+256)])
		if err != nil {
			return nil, fmt.Errorf("embed base sentences: %w", err)
		}
		base = append(base, vs...)
		bar.Add(len(vs))
	}
	writeBase(path, base) // a cache: a failure costs the next run the embedding only
	return base, nil
}

func readBase(path string, n int) ([][]float32, bool) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) != n*corpusDim*4 {
		return nil, false
	}
	base := make([][]float32, n)
	for i := range base {
		v := make([]float32, corpusDim)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(data[(i*corpusDim+j)*4:]))
		}
		base[i] = v
	}
	return base, true
}

func writeBase(path string, base [][]float32) {
	data := make([]byte, 0, len(base)*corpusDim*4)
	for _, v := range base {
		for _, x := range v {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
		}
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		os.Rename(tmp, path)
	}
}
