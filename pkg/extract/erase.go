package extract

import (
	"encoding/json"
	"slices"
	"strings"
)

// HoldsSubject reports whether the value under key, in the session or
// style bucket, holds what subject said in tenant: a session buffer of
// the subject's conversation, or the subject's style observations in one
// of namespaces. An erasure deletes those entries.
func HoldsSubject(key string, value []byte, tenant, subject string, namespaces []string) bool {
	switch {
	case strings.HasPrefix(key, sessionPrefix+tenant+"."):
		var s session
		return json.Unmarshal(value, &s) == nil && s.Tenant == tenant && s.Subject == subject
	case strings.HasPrefix(key, stylePrefix+tenant+"."):
		return slices.ContainsFunc(namespaces, func(ns string) bool { return key == stateKey(stylePrefix, tenant, ns, subject) })
	}
	return false
}
