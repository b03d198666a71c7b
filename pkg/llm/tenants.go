package llm

import (
	"context"
	"sync"
)

// tenantLimiter bounds each tenant's calls in flight, so one busy tenant
// cannot take every slot of a shared provider. It holds an entry only while
// a tenant has calls waiting or in flight, so the map stays as small as
// the number of callers.
type tenantLimiter struct {
	n    int
	mu   sync.Mutex
	sems map[string]*tenantSem
}

type tenantSem struct {
	slots chan struct{}
	users int // calls waiting or in flight; guarded by tenantLimiter.mu
}

func newTenantLimiter(n int) *tenantLimiter {
	return &tenantLimiter{n: n, sems: make(map[string]*tenantSem)}
}

// acquire waits for a slot of tenant; release gives it back.
func (l *tenantLimiter) acquire(ctx context.Context, tenant string) (release func(), err error) {
	l.mu.Lock()
	s := l.sems[tenant]
	if s == nil {
		s = &tenantSem{slots: make(chan struct{}, l.n)}
		l.sems[tenant] = s
	}
	s.users++
	l.mu.Unlock()
	select {
	case s.slots <- struct{}{}:
		var once sync.Once
		return func() {
			once.Do(func() {
				<-s.slots
				l.leave(tenant, s)
			})
		}, nil
	case <-ctx.Done():
		l.leave(tenant, s)
		return nil, ctx.Err()
	}
}

func (l *tenantLimiter) leave(tenant string, s *tenantSem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.users--
	if s.users == 0 {
		delete(l.sems, tenant)
	}
}

// size is how many tenants have an entry.
func (l *tenantLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sems)
}
