package bus

import (
	"net/url"
	"strings"
)

// redactURL hides passwords in a comma-separated list of NATS URLs, for logs.
func redactURL(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			parts[i] = u.Redacted()
		}
	}
	return strings.Join(parts, ",")
}
