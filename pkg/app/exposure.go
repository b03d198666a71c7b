package app

import (
	"fmt"
	"slices"
)

// apiTargets serve tenant data over HTTP.
var apiTargets = []string{TargetIngest, TargetQuery}

// exposed reports whether clients on other machines can reach this
// process's API: a non-loopback listener, or an ingest or query module of a
// split deployment (it shares a queue with other processes, so it sits
// behind a service or a load balancer). A process on its own in-process
// queue (the default, `recollect eval`, `bench`) is neither.
func (c *Config) exposed() bool {
	if !c.Web.Loopback() {
		return true
	}
	if c.singleProcess() || (c.Bus.URL == "" && c.Bus.EmbeddedListen == "") {
		return false
	}
	return slices.ContainsFunc(c.Targets, func(t string) bool { return slices.Contains(apiTargets, t) })
}

// checkExposure refuses to serve an exposed API without keys unless the
// operator said --insecure.
func (c *Config) checkExposure(haveKeys bool) error {
	if haveKeys || c.Insecure || !c.exposed() {
		return nil
	}
	const fix = "configure API keys (--api-keys-file or RECOLLECT_API_KEYS=key=tenant[:admin],...) or pass --insecure to serve without authentication"
	if !c.Web.Loopback() {
		return fmt.Errorf("http-addr %s is not a loopback address and no API keys are configured: %s", c.Web.Addr, fix)
	}
	return fmt.Errorf("targets %v serve the API of a split deployment and no API keys are configured: %s", c.Targets, fix)
}

// CheckExposure is checkExposure with the keys the configuration names
// (RECOLLECT_API_KEYS or --api-keys-file), for deployment checks that
// validate a manifest's settings without starting a process.
func (c *Config) CheckExposure() error {
	return c.checkExposure(c.Auth.Keys != "" || c.Auth.KeysFile != "")
}
