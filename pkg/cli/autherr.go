package cli

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/recollect-dev/recollect/pkg/client"
)

// explain rewrites a server's 401 for a person at the command line: the
// server's message names the HTTP header, which a CLI user never writes;
// the CLI takes the key from --api-key or RECOLLECT_API_KEY. Any other
// error is returned as it is.
func explain(err error) error {
	ce, ok := errors.AsType[*client.Error](err)
	if !ok || ce.Status != http.StatusUnauthorized {
		return err
	}
	why := "the server refused the API key (" + ce.Message + ")"
	if ce.Message == "" || strings.Contains(ce.Message, "missing API key") || strings.Contains(ce.Message, "Authorization") {
		why = "the server needs an API key and none was sent"
	}
	return fmt.Errorf("%s %s answered 401: %s; give the key with --api-key KEY or set RECOLLECT_API_KEY", ce.Method, ce.Path, why)
}
