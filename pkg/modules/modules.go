// Package modules runs a set of named modules with dependencies, in the
// manner of grafana/dskit: a module starts only after its dependencies are
// running, stops before them, and one failing stops the rest.
package modules

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Service is what a module's init function returns.
type Service interface {
	// Start returns once the service is running (consumers attached,
	// listeners bound); background work continues until Stop.
	Start(ctx context.Context) error
	// Stop drains in-flight work and releases resources.
	Stop(ctx context.Context) error
}

// Failer is implemented by services that can fail after Start.
type Failer interface {
	Failed() <-chan error
}

// Module is a name, an init function and its dependencies. A group module
// (like "all") has no init function.
type Module struct {
	Name string
	Deps []string
	Init func(ctx context.Context) (Service, error)
	// Public modules can be named as targets.
	Public bool
}

// Manager holds the module table.
type Manager struct {
	mods map[string]Module
	log  *slog.Logger

	mu      sync.Mutex
	running []runningModule
	// started names every module started, services or not, in order.
	started []string
	ready   bool
	failed  chan error
}

type runningModule struct {
	name string
	svc  Service
}

// New returns an empty manager.
func New(log *slog.Logger) *Manager {
	return &Manager{mods: map[string]Module{}, log: log, failed: make(chan error, 1)}
}

// Register adds a module.
func (m *Manager) Register(mod Module) {
	m.mods[mod.Name] = mod
}

// Targets lists the public module names, sorted.
func (m *Manager) Targets() []string {
	var out []string
	for n, mod := range m.mods {
		if mod.Public {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Order resolves targets to every module they need, dependencies first.
// Unknown targets and dependency cycles are errors.
func (m *Manager) Order(targets []string) ([]string, error) {
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		mod, ok := m.mods[name]
		if !ok {
			return fmt.Errorf("unknown module %q (known: %s)", name, strings.Join(m.Targets(), ", "))
		}
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("module dependency cycle: %s", strings.Join(append(path, name), " -> "))
		}
		state[name] = 1
		deps := slices.Clone(mod.Deps)
		sort.Strings(deps)
		for _, d := range deps {
			if err := visit(d, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		order = append(order, name)
		return nil
	}
	for _, t := range targets {
		if err := visit(strings.TrimSpace(t), nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// Start initialises and starts the modules the targets need, in dependency
// order. On any failure it stops what already started and returns the error.
func (m *Manager) Start(ctx context.Context, targets []string) error {
	order, err := m.Order(targets)
	if err != nil {
		return err
	}
	for _, name := range order {
		mod := m.mods[name]
		if mod.Init == nil {
			continue
		}
		begin := time.Now()
		svc, err := mod.Init(ctx)
		if err == nil && svc != nil {
			err = svc.Start(ctx)
		}
		if err != nil {
			stopErr := m.Stop(context.WithoutCancel(ctx))
			return errors.Join(fmt.Errorf("start module %s: %w", name, err), stopErr)
		}
		m.mu.Lock()
		m.started = append(m.started, name)
		if svc != nil {
			m.running = append(m.running, runningModule{name: name, svc: svc})
		}
		m.mu.Unlock()
		if svc == nil {
			continue
		}
		if f, ok := svc.(Failer); ok {
			go m.watch(name, f)
		}
		m.log.Info("module started", "module", name, "took", time.Since(begin).Round(time.Millisecond).String())
	}
	m.mu.Lock()
	m.ready = true
	m.mu.Unlock()
	return nil
}

func (m *Manager) watch(name string, f Failer) {
	err, ok := <-f.Failed()
	if !ok || err == nil {
		return
	}
	m.mu.Lock()
	m.ready = false
	m.mu.Unlock()
	select {
	case m.failed <- fmt.Errorf("module %s failed: %w", name, err):
	default:
	}
}

// Running lists the started modules (group modules aside) in start order,
// until Stop.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.started)
}

// Group reports whether name is a group module (no init function of its
// own, like "all").
func (m *Manager) Group(name string) bool { return m.mods[name].Init == nil }

// Failed reports the first module failure after start.
func (m *Manager) Failed() <-chan error { return m.failed }

// Ready reports whether every module started and none has failed or stopped.
func (m *Manager) Ready() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ready
}

// Stop stops the running modules in reverse start order, each draining its
// in-flight work, and returns every error joined.
func (m *Manager) Stop(ctx context.Context) error {
	m.mu.Lock()
	running := m.running
	m.running, m.started = nil, nil
	m.ready = false
	m.mu.Unlock()
	var errs []error
	for i := len(running) - 1; i >= 0; i-- {
		r := running[i]
		if err := r.svc.Stop(ctx); err != nil {
			m.log.Error("module stop", "module", r.name, "error", err)
			errs = append(errs, fmt.Errorf("stop module %s: %w", r.name, err))
			continue
		}
		m.log.Info("module stopped", "module", r.name)
	}
	return errors.Join(errs...)
}

// Funcs adapts two functions into a Service.
type Funcs struct {
	StartFunc func(ctx context.Context) error
	StopFunc  func(ctx context.Context) error
}

// Start implements Service.
func (f Funcs) Start(ctx context.Context) error {
	if f.StartFunc == nil {
		return nil
	}
	return f.StartFunc(ctx)
}

// Stop implements Service.
func (f Funcs) Stop(ctx context.Context) error {
	if f.StopFunc == nil {
		return nil
	}
	return f.StopFunc(ctx)
}

// Closer makes a Service of something that only needs closing.
func Closer(close func() error) Service {
	return Funcs{StopFunc: func(context.Context) error { return close() }}
}
