package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestTenant(t *testing.T) {
	open := context.Background()
	acme := WithPrincipal(open, Principal{Name: "acme-agent", Tenant: "acme"})
	admin := WithPrincipal(open, Principal{Name: "ops", Tenant: "ops", Admin: true})
	adminNoTenant := WithPrincipal(open, Principal{Name: "root", Admin: true})
	tests := []struct {
		name      string
		ctx       context.Context
		requested string
		want      string
		forbidden bool
	}{
		{"open, none requested", open, "", "default", false},
		{"open, requested", open, "globex", "globex", false},
		{"tenant key, none requested", acme, "", "acme", false},
		{"tenant key, own requested", acme, "acme", "acme", false},
		{"tenant key, other requested", acme, "globex", "", true},
		{"tenant key, default requested", acme, "default", "", true},
		{"tenant key, case differs", acme, "ACME", "", true},
		{"admin, requested", admin, "globex", "globex", false},
		{"admin, none requested", admin, "", "ops", false},
		{"admin without tenant, none requested", adminNoTenant, "", "default", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Tenant(tt.ctx, tt.requested)
			if tt.forbidden {
				var fe *ForbiddenError
				if !errors.Is(err, ErrForbidden) || !errors.As(err, &fe) {
					t.Fatalf("Tenant = %q, %v; want ErrForbidden", got, err)
				}
				for _, part := range []string{`"acme-agent"`, `"acme"`, `"` + tt.requested + `"`} {
					if !strings.Contains(err.Error(), part) {
						t.Fatalf("error %q does not name %s", err, part)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Tenant = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
