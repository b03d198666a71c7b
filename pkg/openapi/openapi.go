// Package openapi holds the OpenAPI 3.1 description of Recollect's HTTP API,
// served by every process at GET /openapi.json. The document is written by
// hand (openapi.json) rather than generated, because the request and
// response types live in packages that import pkg/web, which serves it; the
// tests check it against the real handlers and the Go types instead.
package openapi

import (
	_ "embed"
	"net/http"
	"strconv"
)

//go:embed openapi.json
var document []byte

// Document returns a copy of the OpenAPI document (JSON).
func Document() []byte {
	return append([]byte(nil), document...)
}

// Handler serves the document.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(document)))
		w.Header().Set("Cache-Control", "no-cache")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(document)
	})
}
