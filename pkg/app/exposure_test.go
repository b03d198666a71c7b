package app

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestCheckExposure(t *testing.T) {
	tests := []struct {
		name     string
		targets  []string
		addr     string
		natsURL  string
		listen   string
		insecure bool
		keys     bool
		wantErr  string
	}{
		{name: "single process on loopback", targets: []string{"all"}, addr: "127.0.0.1:7700"},
		{name: "single process on localhost", targets: []string{"all"}, addr: "localhost:7700"},
		{name: "single process on all interfaces", targets: []string{"all"}, addr: "0.0.0.0:7700", wantErr: "http-addr 0.0.0.0:7700 is not a loopback address and no API keys are configured"},
		{name: "empty host is every interface", targets: []string{"all"}, addr: ":7700", wantErr: "not a loopback address"},
		{name: "all interfaces with keys", targets: []string{"all"}, addr: "0.0.0.0:7700", keys: true},
		{name: "all interfaces, insecure", targets: []string{"all"}, addr: "[::]:7700", insecure: true},
		{name: "split query", targets: []string{"query"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222", wantErr: "targets [query] serve the API of a split deployment"},
		{name: "split ingest", targets: []string{"ingest"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222", wantErr: "RECOLLECT_API_KEYS"},
		{name: "split ingest and extractor", targets: []string{"extractor", "ingest"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222", wantErr: "--insecure"},
		{name: "embedded queue shared over TCP", targets: []string{"query"}, addr: "127.0.0.1:7700", listen: "127.0.0.1:4222", wantErr: "split deployment"},
		{name: "split query with keys", targets: []string{"query"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222", keys: true},
		{name: "split query, insecure", targets: []string{"query"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222", insecure: true},
		{name: "split worker without an API", targets: []string{"extractor", "embedder", "store"}, addr: "127.0.0.1:7700", natsURL: "nats://n:4222"},
		{name: "worker without an API on all interfaces", targets: []string{"embedder"}, addr: "0.0.0.0:7700", natsURL: "nats://n:4222", wantErr: "not a loopback address"},
		{name: "in-process query on its private queue (eval, bench)", targets: []string{"ingest", "query"}, addr: "127.0.0.1:0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			c.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), "")
			c.Targets, c.Web.Addr, c.Bus.URL, c.Bus.EmbeddedListen, c.Insecure = tt.targets, tt.addr, tt.natsURL, tt.listen, tt.insecure
			err := c.checkExposure(tt.keys)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
