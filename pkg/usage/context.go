package usage

import "context"

type tenantKey struct{}

// WithTenant marks ctx with the tenant a model call is made for, so that
// wrappers recording usage deep in a call chain attribute it correctly.
func WithTenant(ctx context.Context, tenant string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenant)
}

// TenantFrom returns the tenant set by WithTenant, or "".
func TenantFrom(ctx context.Context) string {
	t, _ := ctx.Value(tenantKey{}).(string)
	return t
}
