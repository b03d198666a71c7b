package minilm

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestZZChunk(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := testModel(t)
	var seqs [][]int32
	for i := 0; i < 16; i++ {
		seqs = append(seqs, m.tok.encode(strings.Repeat(fmt.Sprintf("document %d has many words in it ", i), 40)))
	}
	var short [][]int32
	for i := 0; i < 4; i++ {
		for _, s := range shortSentences {
			short = append(short, m.tok.encode(s))
		}
	}
	for _, set := range []struct {
		name string
		seqs [][]int32
	}{{"long", seqs}, {"short", short}} {
		for _, chunk := range []int{256, 512, 1024, 2048, 4096} {
			ws := &workspace{}
			out := make2(len(set.seqs))
			t0 := threadCPU()
			tokens := 0
			for rep := 0; rep < 2; rep++ {
				for i := 0; i < len(set.seqs); {
					j, n := i, 0
					for j < len(set.seqs) && (j == i || n+len(set.seqs[j]) <= chunk) {
						n += len(set.seqs[j])
						j++
					}
					m.enc.encode(ws, 1, set.seqs[i:j], out[i:j])
					tokens += n
					i = j
				}
			}
			d := threadCPU() - t0
			fmt.Printf("%s chunk %d: %.0f tokens/cpu-s\n", set.name, chunk, float64(tokens)/d.Seconds())
		}
	}
}
