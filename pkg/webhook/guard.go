package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// ErrRefusedAddress is returned for an endpoint that resolves to an
// address the operator did not allow (loopback, link-local, private...).
var ErrRefusedAddress = errors.New("address not allowed")

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// public reports whether ip is a globally routable unicast address.
func public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() &&
		!ip.IsLinkLocalUnicast() && !cgnat.Contains(ip)
}

// checkURL validates an endpoint's URL and, unless private addresses are
// allowed, that every address its host resolves to is public.
func checkURL(ctx context.Context, raw string, allowPrivate bool, resolver *net.Resolver) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("url: scheme must be http or https")
	case u.Hostname() == "":
		return errors.New("url: host is required")
	case u.User != nil:
		return errors.New("url: must not carry credentials")
	case len(raw) > 2048:
		return errors.New("url: longer than 2048 characters")
	}
	if allowPrivate {
		return nil
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return fmt.Errorf("url: resolve %s: %w", u.Hostname(), err)
	}
	for _, a := range addrs {
		if !public(a) {
			return fmt.Errorf("url: %s resolves to %s: %w (the operator can allow it with --webhook-allow-private)", u.Hostname(), a.Unmap(), ErrRefusedAddress)
		}
	}
	return nil
}

// dialControl refuses, at connect time, an address that is not public:
// checking at registration only would let a host re-resolve to a private
// address afterwards (DNS rebinding).
func dialControl(allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: %w", address, err)
		}
		if !public(ap.Addr()) {
			return fmt.Errorf("dial %s: %w", address, ErrRefusedAddress)
		}
		return nil
	}
}
