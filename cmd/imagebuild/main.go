// Command imagebuild builds Recollect's container image without a Docker
// daemon: it cross-compiles the recollect binary (CGO_ENABLED=0, static),
// links the six module names to it (recollect run as ingest behaves as the
// ingest binary) and writes a docker-loadable tarball built FROM scratch
// (make image).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/recollect-dev/recollect/internal/image"
	"github.com/recollect-dev/recollect/pkg/cli"
)

// The image's one binary; the module names are symlinks to it
// (cli.ModuleBinaries, the names cli.ProgramMain dispatches on).
const (
	binary    = "recollect"
	binaryPkg = "./cmd/recollect"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "imagebuild:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("imagebuild", flag.ContinueOnError)
	out := fs.String("out", "bin/recollect-image.tar", "image tarball to write")
	version := fs.String("version", "", "image version (default: git describe, else dev)")
	tag := fs.String("tag", "", "image tag (default: recollect:<version>; recollect:latest is always added, the tag docker-compose.yml runs)")
	arch := fs.String("arch", runtime.GOARCH, "target architecture (GOARCH)")
	source := fs.String("source", "https://github.com/recollect-dev/recollect", "org.opencontainers.image.source")
	licenses := fs.String("licenses", image.License, "org.opencontainers.image.licenses (an SPDX expression: the repository's LICENSE)")
	caCerts := fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to copy into the image (skipped with a warning when absent)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" {
		*version = gitOr(ctx, "dev", "describe", "--tags", "--always", "--dirty")
	}
	if *tag == "" {
		*tag = "recollect:" + strings.ReplaceAll(*version, "+", "-")
	}
	revision := gitOr(ctx, "unknown", "rev-parse", "HEAD")
	created := time.Unix(0, 0).UTC()
	if ts, err := strconv.ParseInt(gitOr(ctx, "", "log", "-1", "--format=%ct"), 10, 64); err == nil {
		created = time.Unix(ts, 0).UTC()
	}
	if _, err := os.Stat(*caCerts); err != nil {
		fmt.Fprintf(os.Stderr, "imagebuild: no CA bundle at %s (%v): TLS to remote services will not verify inside the image\n", *caCerts, err)
		*caCerts = ""
	}

	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(*out), err)
	}
	work, err := os.MkdirTemp(filepath.Dir(*out), ".imagebuild-")
	if err != nil {
		return fmt.Errorf("create work directory: %w", err)
	}
	defer os.RemoveAll(work)

	bin := filepath.Join(work, binary)
	spec := image.Spec{Binaries: map[string]string{binary: bin}, Aliases: cli.ModuleBinaries(), CACerts: *caCerts,
		OS: "linux", Arch: *arch, Version: *version, Revision: revision, Source: *source, Licenses: *licenses, Created: created}
	if err := crossBuild(ctx, bin, *arch, *version); err != nil {
		return err
	}
	img, err := image.Build(spec, filepath.Join(work, "layer.tar"))
	if err != nil {
		return err
	}
	if err := image.Write(*out, img, *tag, "recollect:latest"); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return fmt.Errorf("image digest: %w", err)
	}
	fmt.Printf("wrote %s: %s and recollect:latest (%s, linux/%s); load it with: docker load -i %s\n", *out, *tag, digest, *arch, *out)
	return nil
}

// crossBuild builds recollect into out as a static linux binary.
func crossBuild(ctx context.Context, out, arch, version string) error {
	args := []string{"build", "-trimpath", "-ldflags",
		"-s -w -X github.com/recollect-dev/recollect/pkg/cli.Version=" + version, "-o", out, binaryPkg}
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	fmt.Fprintf(os.Stderr, "imagebuild: building the static linux/%s recollect binary\n", arch)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("binary %s not built: %w", out, err)
	}
	return nil
}

// goTool is the go command: $GO (the Makefile passes its own), else go.
func goTool() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func gitOr(ctx context.Context, fallback string, args ...string) string {
	b, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil || strings.TrimSpace(string(b)) == "" {
		return fallback
	}
	return strings.TrimSpace(string(b))
}
