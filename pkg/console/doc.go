// Package console is the operator console at /ui: server-rendered pages
// (html/template, so stored content is escaped: it is hostile input) over
// the same API the agents use. A person logs in with an API key; the key
// stays on the server in a session (the browser holds a random session id
// in an HttpOnly, SameSite=Strict cookie, Secure behind TLS) and every page
// calls this process's own API on loopback with it, so tenant isolation,
// validation and rate limits are the API's. Every action is a POST carrying
// the session's CSRF token. Nothing is loaded from another origin: the
// stylesheet and the small script are embedded, charts are SVG drawn here.
package console
