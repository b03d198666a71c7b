package minilm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZRSS(t *testing.T) {
	t0 := time.Now()
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("load", time.Since(t0))
	long := make([]string, 64)
	for i := range long {
		long[i] = strings.Repeat("many words in a long document ", 60)
	}
	m.Embed(context.Background(), shortSentences)
	m.Embed(context.Background(), long)
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "RssFile") || strings.HasPrefix(l, "RssAnon") {
			fmt.Println(l)
		}
	}
}
