package llm

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// A base URL's query (Azure's api-version, a gateway's ?key=) stays on the
// endpoint after the path, and errors show the endpoint without its values.
func TestProviderEndpointKeepsQueryAndHidesIt(t *testing.T) {
	p := newProvider("https://u:pw@gw.example/v1/?key=s3cr3t&api-version=2024", "", "")
	if want := "https://u:pw@gw.example/v1/chat/completions?key=s3cr3t&api-version=2024"; p.endpoint != want {
		t.Fatalf("endpoint = %s, want %s", p.endpoint, want)
	}
	if strings.Contains(p.shown, "s3cr3t") || strings.Contains(p.shown, "pw") {
		t.Fatalf("shown endpoint %s holds a secret", p.shown)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the call fails with a *url.Error
	c := &Client{http: &http.Client{Transport: newTransport()}}
	_, err = c.post(context.Background(), newProvider(fmt.Sprintf("http://%s/v1?key=s3cr3t", addr), "", ""), "m", []byte("{}"))
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("post error = %v, want one naming %s without the key", err, addr)
	}
}
