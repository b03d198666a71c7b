// Package testserver starts real backing servers for tests (redis-server,
// clickhouse-server, a nats-server binary) on free loopback ports, and stops
// them when the test ends.
//
// The Debian-packaged binaries are looked up on PATH with RequireBinary. When
// one is missing the test is skipped on a developer machine but fails loudly
// in CI (env CI set) or when RECOLLECT_REQUIRE_SERVERS=1, so a CI image
// without the server cannot pass vacuously. Shared helpers: FreePort,
// RequireBinary, WaitFor.
package testserver
