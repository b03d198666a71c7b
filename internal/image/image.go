package image

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Paths and settings baked into the image.
const (
	BinDir     = "/usr/local/bin"
	DataDir    = "/data"
	HTTPPort   = "7700/tcp"
	CACertPath = "/etc/ssl/certs/ca-certificates.crt"
)

// License is the SPDX expression of the repository's LICENSE (Apache-2.0,
// as are the vendored all-MiniLM-L6-v2 weights), the image's
// org.opencontainers.image.licenses unless a Spec says otherwise. The
// Dockerfile's label says the same (TestLicenseEverywhere).
const License = "Apache-2.0"

// Spec says what goes into the image.
type Spec struct {
	// Binaries maps a name in BinDir (recollect, ...) to a static linux
	// binary on this machine.
	Binaries map[string]string
	// Aliases are names in BinDir made symbolic links to recollect (the
	// module names: recollect run under one behaves as that module's binary).
	Aliases []string
	// CACerts is a PEM bundle copied to CACertPath; empty: none (TLS to
	// remote LLMs then fails to verify).
	CACerts  string
	OS, Arch string
	Version  string // org.opencontainers.image.version
	Revision string // org.opencontainers.image.revision (git commit)
	Source   string // org.opencontainers.image.source
	Licenses string // org.opencontainers.image.licenses; empty: License
	// Created stamps the config and every layer entry (the commit's time
	// keeps the image reproducible).
	Created time.Time
}

// Config is the image's runtime configuration: recollect run as the
// non-root user, listening on every interface, data in /data.
func Config(s Spec) v1.Config {
	if s.Licenses == "" {
		s.Licenses = License
	}
	return v1.Config{
		Entrypoint:   []string{BinDir + "/recollect"},
		Cmd:          []string{"run"},
		User:         strconv.Itoa(UID) + ":" + strconv.Itoa(GID),
		WorkingDir:   DataDir,
		ExposedPorts: map[string]struct{}{HTTPPort: {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		Env: []string{
			"PATH=" + BinDir,
			"RECOLLECT_DATA_DIR=" + DataDir,
			"RECOLLECT_HTTP_ADDR=0.0.0.0:7700",
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "recollect",
			"org.opencontainers.image.description": "Long-term memory for AI agents",
			"org.opencontainers.image.version":     s.Version,
			"org.opencontainers.image.revision":    s.Revision,
			"org.opencontainers.image.source":      s.Source,
			"org.opencontainers.image.licenses":    s.Licenses,
			"org.opencontainers.image.created":     s.Created.UTC().Format(time.RFC3339),
		},
	}
}

// Entries lists the layer: the binaries (root-owned, 0755), the aliases as
// relative symlinks to recollect, /data owned by the user, a writable /tmp,
// passwd and group naming the user, and the CA bundle when given.
func Entries(s Spec) ([]Entry, error) {
	if len(s.Binaries) == 0 {
		return nil, fmt.Errorf("image: no binaries")
	}
	if _, ok := s.Binaries["recollect"]; !ok {
		return nil, fmt.Errorf("image: the recollect binary (the entrypoint) is missing")
	}
	names := make([]string, 0, len(s.Binaries))
	for n := range s.Binaries {
		if n == "" || filepath.Base(n) != n {
			return nil, fmt.Errorf("image: binary name %q must be a plain file name", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	var es []Entry
	for _, n := range names {
		es = append(es, Entry{Path: BinDir + "/" + n, Mode: 0o755, Src: s.Binaries[n]})
	}
	aliases := map[string]bool{}
	for _, a := range s.Aliases {
		switch {
		case a == "" || filepath.Base(a) != a:
			return nil, fmt.Errorf("image: alias %q must be a plain file name", a)
		case s.Binaries[a] != "":
			return nil, fmt.Errorf("image: %s is both a binary and an alias", a)
		case aliases[a]:
			return nil, fmt.Errorf("image: alias %s listed twice", a)
		}
		aliases[a] = true
		// Relative, so the link also resolves where the image's files are
		// mounted elsewhere (compose's image volumes at /opt/recollect).
		es = append(es, Entry{Path: BinDir + "/" + a, Mode: 0o777, Link: "recollect"})
	}
	es = append(es,
		Entry{Path: DataDir, Dir: true, Mode: 0o755, UID: UID, GID: GID},
		Entry{Path: "/tmp", Dir: true, Mode: 0o1777},
		Entry{Path: "/etc/passwd", Mode: 0o644, Data: []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, GID, DataDir))},
		Entry{Path: "/etc/group", Mode: 0o644, Data: []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", GID))},
	)
	if s.CACerts != "" {
		es = append(es, Entry{Path: CACertPath, Mode: 0o644, Src: s.CACerts})
	}
	return es, nil
}

// Build writes the layer to layerPath (a tar file, kept until the image is
// written) and returns the image: FROM scratch, one layer, Config(s).
func Build(s Spec, layerPath string) (v1.Image, error) {
	es, err := Entries(s)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(layerPath)
	if err != nil {
		return nil, fmt.Errorf("create layer file: %w", err)
	}
	if err := writeLayer(f, es, s.Created); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("write layer file: %w", err)
	}
	layer, err := tarball.LayerFromFile(layerPath, tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("read layer %s: %w", layerPath, err)
	}
	cf, err := empty.Image.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("empty image config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = s.OS, s.Arch
	cf.Created = v1.Time{Time: s.Created}
	cf.Config = Config(s)
	img, err := mutate.ConfigFile(empty.Image, cf)
	if err != nil {
		return nil, fmt.Errorf("image config: %w", err)
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: "recollect imagebuild", Comment: "static binaries, /data, CA certificates"},
	})
	if err != nil {
		return nil, fmt.Errorf("append layer: %w", err)
	}
	return img, nil
}

// Write writes img as a docker-loadable tarball under every tag (e.g.
// recollect:v0.3.0 and recollect:latest, the tag docker-compose.yml runs).
func Write(path string, img v1.Image, tags ...string) error {
	if len(tags) == 0 {
		return fmt.Errorf("write image %s: no tag", path)
	}
	refs := map[name.Tag]v1.Image{}
	for _, t := range tags {
		ref, err := name.NewTag(t)
		if err != nil {
			return fmt.Errorf("image tag %q: %w", t, err)
		}
		refs[ref] = img
	}
	if err := tarball.MultiWriteToFile(path, refs); err != nil {
		return fmt.Errorf("write image %s: %w", path, err)
	}
	return nil
}
