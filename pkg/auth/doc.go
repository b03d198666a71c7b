// Package auth authenticates API requests with bearer keys bound to a
// tenant, limits each key's request rate, and resolves the tenant a request
// acts for. Only SHA-256 hashes of keys are kept in memory.
//
// Handlers never trust a tenant named in a request on their own: they call
// Tenant(ctx, requested), which answers the requested tenant when the
// server runs without keys, the key's tenant for a tenant key (and
// ErrForbidden when the request names another), and the requested tenant
// for an admin key.
package auth
