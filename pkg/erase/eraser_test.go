package erase

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// A purge that cannot finish while the request waits answers a running
// receipt and completes in the background; each place's outcome lands in
// the receipt read by id, failures and refusals named.
func TestEraserReceipt(t *testing.T) {
	release := make(chan struct{})
	places := []Place{
		PlaceFunc{Place: "slow", Func: func(ctx context.Context, t Target) (Outcome, error) {
			<-release
			return Outcome{Erased: len(t.IDs), Note: "done"}, nil
		}},
		PlaceFunc{Place: "refuses", Func: func(context.Context, Target) (Outcome, error) {
			return Outcome{}, fmt.Errorf("%w: no means", ErrCannot)
		}},
		PlaceFunc{Place: "fails", Func: func(context.Context, Target) (Outcome, error) {
			return Outcome{Erased: 1}, errors.New("backend down")
		}},
	}
	e := New(places, nil, WithWait(0))
	ctx := context.Background()
	rc := e.Start(ctx, Target{Tenant: "acme", Subject: "ada", IDs: []string{"a", "b"}}, PlaceReceipt{Place: "store", State: StateErased, Erased: 2})
	if rc.Done() || rc.State != StateRunning || len(rc.Places) != 4 || rc.Places[1].State != StatePending {
		t.Fatalf("first answer = %+v, want running with the slow place pending", rc)
	}
	close(release)
	e.Wait()
	got, err := e.Receipt(ctx, "acme", rc.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []PlaceReceipt{
		{Place: "store", State: StateErased, Erased: 2},
		{Place: "slow", State: StateErased, Erased: 2, Note: "done"},
		{Place: "refuses", State: StateNotErased, Note: "cannot erase here: no means"},
		{Place: "fails", State: StateFailed, Erased: 1, Note: "backend down"},
	}
	if got.State != StateIncomplete || got.Finished == nil || fmt.Sprint(got.Places) != fmt.Sprint(want) {
		t.Fatalf("final receipt = %s %+v, want incomplete %+v", got.State, got.Places, want)
	}
	if _, err := e.Receipt(ctx, "globex", rc.ID); !errors.Is(err, ErrNoReceipt) {
		t.Fatalf("another tenant read the receipt: %v", err)
	}
	// Asked again once the store holds nothing of ada: the unfinished
	// purge's ids are still looked for.
	again := e.Start(ctx, Target{Tenant: "acme", Subject: "ada"})
	e.Wait()
	again, _ = e.Receipt(ctx, "acme", again.ID)
	if again.Places[0].Place != "slow" || again.Places[0].Erased != 2 {
		t.Fatalf("retried purge = %+v, want the earlier purge's 2 ids", again.Places)
	}
}

// Every place erased: complete, answered at once when the wait allows.
func TestEraserComplete(t *testing.T) {
	e := New([]Place{Usage()}, nil, WithWait(time.Minute))
	rc := e.Start(context.Background(), Target{Tenant: "acme"})
	if rc.State != StateComplete || !rc.Done() {
		t.Fatalf("receipt = %+v, want complete", rc)
	}
}
