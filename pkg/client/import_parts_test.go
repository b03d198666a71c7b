package client_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

// TestImportReportsStoredParts: ImportWith sends parts of PartLines lines
// and reports the memories stored after each (the CLI's bar counts them).
func TestImportReportsStoredParts(t *testing.T) {
	a := clienttest.Start(t)
	c := client.New(a.Web().URL())
	var mems []memory.Memory
	for i := range 5 {
		m := storetest.FullMemory(fmt.Sprintf("part-%d", i), "acme", time.Date(2025, 3, 14, 15, 0, 0, 0, time.UTC), nil)
		m.Content = fmt.Sprintf("fact %d about parts", i)
		mems = append(mems, m)
	}
	var seen []int
	resp, err := c.ImportWith(context.Background(), "acme", bytes.NewReader(encode(t, mems)), client.ImportOptions{PartLines: 2,
		Progress: func(soFar client.ImportResponse) { seen = append(seen, soFar.Imported+soFar.Skipped) }})
	if err != nil || resp.Imported != 5 {
		t.Fatalf("import: %+v %v", resp, err)
	}
	if !slices.Equal(seen, []int{2, 4, 5}) {
		t.Fatalf("progress %v, want [2 4 5]", seen)
	}
}
