// Package webhook pushes a tenant's changes to the HTTP endpoints it
// registered, signed per the Standard Webhooks scheme
// (https://www.standardwebhooks.com): webhook-id, webhook-timestamp and
// webhook-signature (v1, HMAC-SHA256 over id.timestamp.body, base64).
//
// Endpoints and their secrets are kept in a JetStream key-value bucket, so
// they survive restarts and every query replica sees the same set. Each
// endpoint has its own durable consumer on RECOLLECT_EVENT filtered to its
// tenant's subjects, with one message in flight (MaxAckPending 1): the
// endpoint receives its tenant's events in stream order, so one memory's
// events arrive in the order they happened, and a failing endpoint holds
// back only itself. Delivery is at least once: a message is acknowledged
// only after the endpoint answered 2xx, retried with exponential back-off,
// and dead-lettered with the reason after the last attempt.
package webhook
