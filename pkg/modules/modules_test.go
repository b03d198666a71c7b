package modules

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
}

func (r *recorder) module(name string, startErr error, deps ...string) Module {
	return Module{Name: name, Deps: deps, Public: true, Init: func(context.Context) (Service, error) {
		return Funcs{
			StartFunc: func(context.Context) error { r.add("start " + name); return startErr },
			StopFunc:  func(context.Context) error { r.add("stop " + name); return nil },
		}, nil
	}}
}

func TestStartOrderAndReverseStop(t *testing.T) {
	r := &recorder{}
	m := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	m.Register(r.module("bus", nil))
	m.Register(r.module("store", nil))
	m.Register(r.module("embedder", nil, "bus", "store"))
	m.Register(r.module("query", nil, "store"))
	m.Register(Module{Name: "all", Deps: []string{"embedder", "query"}, Public: true})
	ctx := context.Background()
	if err := m.Start(ctx, []string{"all"}); err != nil {
		t.Fatal(err)
	}
	if !m.Ready() {
		t.Fatal("not ready after start")
	}
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"start bus", "start store", "start embedder", "start query", "stop query", "stop embedder", "stop store", "stop bus"}
	if !slices.Equal(r.events, want) {
		t.Fatalf("events = %v\nwant %v", r.events, want)
	}
	if m.Ready() {
		t.Fatal("ready after stop")
	}
}

func TestStartFailureStopsStarted(t *testing.T) {
	r := &recorder{}
	m := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	m.Register(r.module("bus", nil))
	m.Register(r.module("bad", errors.New("boom"), "bus"))
	err := m.Start(context.Background(), []string{"bad"})
	if err == nil || !strings.Contains(err.Error(), "start module bad: boom") {
		t.Fatalf("err = %v", err)
	}
	want := []string{"start bus", "start bad", "stop bus"}
	if !slices.Equal(r.events, want) {
		t.Fatalf("events = %v, want %v", r.events, want)
	}
}

func TestOrderErrors(t *testing.T) {
	m := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	m.Register(Module{Name: "a", Deps: []string{"b"}})
	m.Register(Module{Name: "b", Deps: []string{"a"}})
	if _, err := m.Order([]string{"a"}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle: err = %v", err)
	}
	if _, err := m.Order([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `unknown module "nope"`) {
		t.Fatalf("unknown: err = %v", err)
	}
}

type failing struct {
	Funcs
	ch chan error
}

func (f failing) Failed() <-chan error { return f.ch }

func TestFailureAfterStartTurnsNotReady(t *testing.T) {
	ch := make(chan error, 1)
	m := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	m.Register(Module{Name: "w", Public: true, Init: func(context.Context) (Service, error) { return failing{ch: ch}, nil }})
	if err := m.Start(context.Background(), []string{"w"}); err != nil {
		t.Fatal(err)
	}
	ch <- errors.New("lost connection")
	err := <-m.Failed()
	if err == nil || !strings.Contains(err.Error(), "module w failed: lost connection") {
		t.Fatalf("err = %v", err)
	}
	if m.Ready() {
		t.Fatal("still ready after failure")
	}
}
