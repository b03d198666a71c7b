package storetest

import (
	"slices"
	"testing"

	"github.com/recollect-dev/recollect/pkg/store"
)

func testTenantIsolation(t *testing.T, e *env) {
	a, b := tenant(t, "a"), tenant(t, "b")
	// Same contents and vectors in both tenants; ids differ, as MemoryID's do.
	var aIDs, bIDs []string
	for i := range 3 {
		m := e.basic(t, a, i, e.vec(1, float32(i), 0, 0))
		upsert(t, e.s, m)
		aIDs = append(aIDs, m.ID)
	}
	for i := range 2 {
		m := e.basic(t, b, 10+i, e.vec(1, float32(i), 0, 0))
		upsert(t, e.s, m)
		bIDs = append(bIDs, m.ID)
	}
	check := func(stage string, ten string, want []string) {
		t.Helper()
		if n := count(t, e.s, ten, store.Filter{}); n != len(want) {
			t.Errorf("%s: count %s = %d, want %d", stage, ten, n, len(want))
		}
		if ids := scrollIDs(t, e.s, ten, store.Filter{}); !sameIDs(ids, want) {
			t.Errorf("%s: scroll %s = %v, want %v", stage, ten, ids, want)
		}
		hits := search(t, e.s, store.Query{Tenant: ten, Vector: e.vec(1, 0, 0, 0), K: 10})
		if ids := hitIDs(hits); !sameIDs(ids, want) {
			t.Errorf("%s: search %s = %v, want %v", stage, ten, ids, want)
		}
	}
	check("before deletes", a, aIDs)
	check("before deletes", b, bIDs)

	wantNotFound(t, e.s, b, aIDs[0])
	wantNotFound(t, e.s, a, bIDs[0])
	if err := e.s.Delete(t.Context(), b, aIDs...); err != nil {
		t.Fatalf("delete tenant a's ids within tenant b: %v", err)
	}
	check("after deleting a's ids in b", a, aIDs)
	if err := e.s.Delete(t.Context(), a, aIDs[0]); err != nil {
		t.Fatalf("delete: %v", err)
	}
	check("after deleting in a", a, aIDs[1:])
	check("after deleting in a", b, bIDs)

	tenants, err := e.s.Tenants(t.Context())
	if err != nil {
		t.Fatalf("tenants: %v", err)
	}
	for _, ten := range []string{a, b} {
		if !slices.Contains(tenants, ten) {
			t.Errorf("tenants = %v, missing %s", tenants, ten)
		}
	}
	if slices.Contains(tenants, tenant(t, "nobody")) {
		t.Errorf("tenants lists a tenant that never stored anything")
	}
	// A tenant with nothing stored reads as empty, not as an error.
	nobody := tenant(t, "nobody")
	if n := count(t, e.s, nobody, store.Filter{}); n != 0 {
		t.Errorf("count of an unknown tenant = %d", n)
	}
	if ids := scrollIDs(t, e.s, nobody, store.Filter{}); len(ids) != 0 {
		t.Errorf("scroll of an unknown tenant = %v", ids)
	}
	if hits := search(t, e.s, store.Query{Tenant: nobody, Vector: e.vec(1, 0, 0, 0), K: 3}); len(hits) != 0 {
		t.Errorf("search of an unknown tenant = %v", hitIDs(hits))
	}
}
