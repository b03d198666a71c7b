package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/client/clienttest"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/memory"
	"github.com/recollect-dev/recollect/pkg/store/storetest"
)

const (
	keyAcme  = "export-test-key-acme"
	keyAdmin = "export-test-key-admin"
)

func encode(t *testing.T, mems []memory.Memory) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, m := range mems {
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func exportAll(t *testing.T, c *client.Client, opts client.ExportOptions) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	n, err := c.Export(context.Background(), opts, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	})
	if err != nil || n != len(out) {
		t.Fatalf("export %+v: %d memories, %v", opts, n, err)
	}
	return out
}

// sameFields reports every field of got that differs from want, but the
// tenant; vectors compare within float tolerance.
func sameFields(t *testing.T, what string, got, want memory.Memory) {
	t.Helper()
	if len(got.Vector) != len(want.Vector) {
		t.Errorf("%s: vector of %d dims, want %d", what, len(got.Vector), len(want.Vector))
	}
	for i := range min(len(got.Vector), len(want.Vector)) {
		if math.Abs(float64(got.Vector[i]-want.Vector[i])) > 1e-6 {
			t.Errorf("%s: vector[%d] = %v, want %v", what, i, got.Vector[i], want.Vector[i])
			break
		}
	}
	got.Tenant, want.Tenant, got.Vector, want.Vector = "", "", nil, nil
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		if gt, ok := g.(time.Time); ok {
			if !gt.Equal(w.(time.Time)) {
				t.Errorf("%s: %s = %v, want %v", what, gv.Type().Field(i).Name, g, w)
			}
			continue
		}
		if gp, ok := g.(*time.Time); ok {
			wp := w.(*time.Time)
			if (gp == nil) != (wp == nil) || gp != nil && !gp.Equal(*wp) {
				t.Errorf("%s: %s = %v, want %v", what, gv.Type().Field(i).Name, g, w)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s = %#v, want %#v", what, gv.Type().Field(i).Name, g, w)
		}
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	a := clienttest.Start(t, func(cfg *app.Config) { cfg.Auth.Keys = keyAcme + "=acme," + keyAdmin + "=ops:admin" })
	ctx := context.Background()
	acme := client.New(a.Web().URL(), client.WithAPIKey(keyAcme))
	admin := client.New(a.Web().URL(), client.WithAPIKey(keyAdmin))

	// Every field populated; the file names another tenant, which is ignored.
	base := time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
	var originals []memory.Memory
	for i := range 3 {
		m := storetest.FullMemory(fmt.Sprintf("rt-%d", i), "globex", base.Add(time.Duration(i)*time.Hour), nil)
		m.Content = fmt.Sprintf("%s (variant %d)", m.Content, i)
		m.Archived = i == 0
		originals = append(originals, m)
	}
	// One carries a vector of the server's model, which is kept as it is.
	kept := make([]float32, minilm.Dim)
	kept[0], kept[1] = 0.6, 0.8
	originals[2].Vector, originals[2].EmbeddingModel = kept, minilm.ModelName

	resp, err := acme.Import(ctx, "", bytes.NewReader(encode(t, originals)))
	if err != nil || resp.Imported != 3 || resp.Skipped != 0 || len(resp.Errors) != 0 {
		t.Fatalf("import: %+v %v", resp, err)
	}

	first := exportAll(t, acme, client.ExportOptions{Vectors: true})
	if len(first) != len(originals) {
		t.Fatalf("exported %d memories, want %d", len(first), len(originals))
	}
	for i, m := range first {
		if m.Tenant != "acme" {
			t.Errorf("%s stored under tenant %q, want the key's acme", m.ID, m.Tenant)
		}
		want := originals[i]
		want.EmbeddingModel = minilm.ModelName
		if i == 2 {
			sameFields(t, "first export "+m.ID, m, want)
		} else {
			if len(m.Vector) != minilm.Dim {
				t.Errorf("%s: embedded to %d dims, want %d", m.ID, len(m.Vector), minilm.Dim)
			}
			m.Vector, want.Vector = nil, nil
			sameFields(t, "first export "+m.ID, m, want)
		}
	}

	t.Run("a fresh tenant gets every field back", func(t *testing.T) {
		resp, err := admin.Import(ctx, "restored", bytes.NewReader(encode(t, first)))
		if err != nil || resp.Imported != 3 {
			t.Fatalf("import into restored: %+v %v", resp, err)
		}
		second := exportAll(t, admin, client.ExportOptions{Tenant: "restored", Vectors: true})
		if len(second) != len(first) {
			t.Fatalf("second export has %d memories, want %d", len(second), len(first))
		}
		for i := range second {
			if second[i].Tenant != "restored" {
				t.Errorf("%s: tenant %q", second[i].ID, second[i].Tenant)
			}
			sameFields(t, "second export "+second[i].ID, second[i], first[i])
		}
		again, err := admin.Import(ctx, "restored", bytes.NewReader(encode(t, second)))
		if err != nil || again.Imported != 0 || again.Skipped != 3 {
			t.Fatalf("importing the same export again: %+v %v, want 3 skipped", again, err)
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		_, err := acme.Export(ctx, client.ExportOptions{Tenant: "restored"}, func(memory.Memory) error { return nil })
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden {
			t.Fatalf("acme's key exporting restored: %v, want 403", err)
		}
		_, err = acme.Import(ctx, "restored", bytes.NewReader(encode(t, first)))
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusForbidden {
			t.Fatalf("acme's key importing into restored: %v, want 403", err)
		}
		if got := exportAll(t, admin, client.ExportOptions{Tenant: "globex"}); len(got) != 0 {
			t.Fatalf("tenant globex, named by the file, holds %d memories", len(got))
		}
		if _, err := client.New(a.Web().URL()).Export(ctx, client.ExportOptions{}, func(memory.Memory) error { return nil }); !errors.Is(err, client.ErrUnauthorized) {
			t.Fatalf("export without a key: %v", err)
		}
	})

	t.Run("bad lines are numbered and nothing is written", func(t *testing.T) {
		good := originals[1]
		good.ID = "rt-new"
		bad := originals[1]
		bad.ID, bad.Layer = "rt-bad", "attic"
		body := append(encode(t, []memory.Memory{good}), []byte("not json\n")...)
		body = append(body, encode(t, []memory.Memory{bad})...)
		resp, err := acme.Import(ctx, "", bytes.NewReader(body))
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || !errors.Is(err, client.ErrInvalid) || apiErr.Field != "line 2" {
			t.Fatalf("import with bad lines: %v", err)
		}
		lines := []int{}
		for _, e := range resp.Errors {
			lines = append(lines, e.Line)
		}
		if !slices.Equal(lines, []int{2, 3}) || resp.Errors[1].Field != "layer" || resp.Imported != 0 {
			t.Fatalf("summary %+v", resp)
		}
		if _, err := acme.GetMemory(ctx, "", "rt-new"); !errors.Is(err, client.ErrNotFound) {
			t.Fatalf("the good line of a rejected import was stored: %v", err)
		}
	})
}
