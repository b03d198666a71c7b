package auth

import (
	"strings"
	"testing"
)

const (
	keyA     = "key-for-tenant-a-0123456789"
	keyB     = "key-for-tenant-b-0123456789"
	keyAdmin = "key-for-the-admin-0123456789"
)

func TestParseKeyList(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Key
		wantErr string
	}{
		{name: "empty", in: ""},
		{name: "spaces and stray commas", in: " , ,"},
		{name: "tenant key", in: keyA + "=acme", want: []Key{{Name: "api-keys[0]", Tenant: "acme", Hash: HashKey(keyA)}}},
		{name: "admin key and padding", in: keyA + "=acme, " + keyB + "==ops:admin", want: []Key{
			{Name: "api-keys[0]", Tenant: "acme", Hash: HashKey(keyA)},
			{Name: "api-keys[1]", Tenant: "ops", Admin: true, Hash: HashKey(keyB + "=")},
		}},
		{name: "no tenant", in: keyA, wantErr: "api-keys[0]: want key=tenant"},
		{name: "empty tenant", in: keyA + "=", wantErr: `tenant "" must be`},
		{name: "bad tenant", in: keyA + "=a.b", wantErr: `tenant "a.b" must be`},
		{name: "unknown scope", in: keyA + "=acme:root", wantErr: `unknown scope "root"`},
		{name: "short key", in: "abc=acme", wantErr: "api-keys[0]: key is 3 characters, shorter than 16"},
		{name: "second entry named", in: keyA + "=acme,short=acme", wantErr: "api-keys[1]: key is 5 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseKeyList(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), keyA) {
					t.Fatalf("error %q reveals the key", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d keys, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i].Name != tt.want[i].Name || got[i].Tenant != tt.want[i].Tenant || got[i].Admin != tt.want[i].Admin || got[i].Hash != tt.want[i].Hash {
					t.Fatalf("key %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	ok := Config{RateLimit: 10, RateBurst: 20}
	tests := []struct {
		name    string
		mod     func(*Config)
		wantErr string
	}{
		{name: "defaults", mod: func(*Config) {}},
		{name: "unlimited", mod: func(c *Config) { c.RateLimit = 0 }},
		{name: "negative rate", mod: func(c *Config) { c.RateLimit = -1 }, wantErr: "rate-limit"},
		{name: "zero burst", mod: func(c *Config) { c.RateBurst = 0 }, wantErr: "rate-burst"},
		{name: "bad key list", mod: func(c *Config) { c.Keys = "nonsense" }, wantErr: "api-keys[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mod(&c)
			err := c.Validate()
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
