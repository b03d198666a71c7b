package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// Authenticator checks bearer keys and limits their rate.
type Authenticator struct {
	keys     []entry
	log      *slog.Logger
	now      func() time.Time
	rejected *prometheus.CounterVec
}

type entry struct {
	hash      [sha256.Size]byte
	principal Principal
	limiter   *rate.Limiter // nil: unlimited
}

// New loads the keys of cfg (file, then the key list) and registers the
// rejection counter on reg (nil: none). Without keys the Authenticator is
// disabled and its middleware lets every request through.
func New(cfg Config, reg prometheus.Registerer, log *slog.Logger, now func() time.Time) (*Authenticator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var keys []Key
	if cfg.KeysFile != "" {
		fromFile, err := LoadFile(cfg.KeysFile)
		if err != nil {
			return nil, err
		}
		keys = append(keys, fromFile...)
	}
	fromList, err := ParseKeyList(cfg.Keys)
	if err != nil {
		return nil, err
	}
	keys = append(keys, fromList...)
	a, err := NewFromKeys(keys, cfg.RateLimit, cfg.RateBurst, log, now)
	if err != nil {
		return nil, err
	}
	if reg != nil {
		reg.MustRegister(a.rejected)
	}
	return a, nil
}

// NewFromKeys builds an Authenticator from parsed keys; perSecond and burst
// apply to keys without their own limits.
func NewFromKeys(keys []Key, perSecond float64, burst int, log *slog.Logger, now func() time.Time) (*Authenticator, error) {
	a := &Authenticator{log: log, now: now,
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "recollect_auth_requests_rejected_total",
			Help: "API requests refused before reaching a handler, by reason (missing_key, invalid_key, rate_limited)."}, []string{"reason"})}
	for i, k := range keys {
		for _, prev := range keys[:i] {
			if prev.Hash == k.Hash {
				return nil, fmt.Errorf("api keys %s and %s are the same key", prev.Name, k.Name)
			}
		}
		if !k.Admin && k.Tenant == "" {
			return nil, fmt.Errorf("api key %s: a tenant key needs a tenant", k.Name)
		}
		r, b := perSecond, burst
		if k.RateLimit != nil {
			r = *k.RateLimit
		}
		if k.RateBurst > 0 {
			b = k.RateBurst
		}
		e := entry{hash: k.Hash, principal: Principal{Name: k.Name, Tenant: k.Tenant, Admin: k.Admin}}
		if r > 0 {
			e.limiter = rate.NewLimiter(rate.Limit(r), max(1, b))
		}
		a.keys = append(a.keys, e)
	}
	return a, nil
}

// Enabled reports whether any key is configured.
func (a *Authenticator) Enabled() bool { return len(a.keys) > 0 }

// lookup finds the key whose hash matches token's. It compares against
// every key in constant time, so timing reveals neither which key matched
// nor how much of a guess was right.
func (a *Authenticator) lookup(token string) (*entry, bool) {
	h := HashKey(token)
	idx := -1
	for i := range a.keys {
		eq := subtle.ConstantTimeCompare(h[:], a.keys[i].hash[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
	}
	if idx < 0 {
		return nil, false
	}
	return &a.keys[idx], true
}

// allow takes one request from the key's bucket, or says how long to wait.
func (e *entry) allow(now time.Time) (bool, time.Duration) {
	if e.limiter == nil {
		return true, 0
	}
	r := e.limiter.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}
