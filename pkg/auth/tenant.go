package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// ErrForbidden marks a request naming a tenant its key may not act for.
var ErrForbidden = errors.New("forbidden")

// ForbiddenError names the key, its tenant and the tenant requested. It
// names nothing the caller did not send or own.
type ForbiddenError struct {
	Key       string
	KeyTenant string
	Requested string
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("api key %q is bound to tenant %q and may not act for tenant %q", e.Key, e.KeyTenant, e.Requested)
}

// Is makes errors.Is(err, ErrForbidden) hold.
func (e *ForbiddenError) Is(target error) bool { return target == ErrForbidden }

// Principal is who a request authenticated as.
type Principal struct {
	Name   string // the key's name, for logs and messages
	Tenant string // the key's tenant; may be empty for an admin key
	Admin  bool
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p (the middleware does this; other
// transports and tests may too).
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the request's principal, if it authenticated.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Tenant resolves the tenant a request acts for. Without a principal (the
// server has no keys: loopback or --insecure) it is the requested tenant or
// "default". A tenant key acts for its own tenant, and a request naming
// another gets a *ForbiddenError. An admin key acts for the requested
// tenant, else its own, else "default".
func Tenant(ctx context.Context, requested string) (string, error) {
	p, ok := FromContext(ctx)
	switch {
	case !ok || p.Admin:
		if requested != "" {
			return requested, nil
		}
		if ok && p.Tenant != "" {
			return p.Tenant, nil
		}
		return memory.DefaultTenant, nil
	case requested == "" || requested == p.Tenant:
		return p.Tenant, nil
	default:
		return "", &ForbiddenError{Key: p.Name, KeyTenant: p.Tenant, Requested: requested}
	}
}
