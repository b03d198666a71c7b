package image

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// modules are the names make image links to recollect.
var modules = []string{"ingest", "extractor", "embedder", "consolidator", "topiary", "query"}

// TestBuildWritesLoadableImage builds the image from a stub binary through
// the same Build and Write as make image, loads the tarball back and checks
// its config and files.
func TestBuildWritesLoadableImage(t *testing.T) {
	dir := t.TempDir()
	bins := map[string]string{"recollect": filepath.Join(dir, "recollect")}
	if err := os.WriteFile(bins["recollect"], []byte("#stub recollect"), 0o600); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	spec := Spec{Binaries: bins, Aliases: modules, CACerts: ca, OS: "linux", Arch: "amd64", Version: "v1.2.3", Revision: "abc123",
		Source: "https://github.com/recollect-dev/recollect", Licenses: "Apache-2.0", Created: created}
	img, err := Build(spec, filepath.Join(dir, "layer.tar"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	if err := Write(out, img, "recollect:v1.2.3", "recollect:latest"); err != nil {
		t.Fatal(err)
	}

	tag, err := name.NewTag("recollect:v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("load the tarball back: %v", err)
	}
	latest, err := name.NewTag("recollect:latest")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tarball.ImageFromPath(out, &latest); err != nil {
		t.Fatalf("load recollect:latest back: %v", err)
	}
	cf, err := loaded.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" || !cf.Created.Time.Equal(created) {
		t.Errorf("platform = %s/%s created %v", cf.OS, cf.Architecture, cf.Created)
	}
	c := cf.Config
	if !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/recollect"}) || !slices.Equal(c.Cmd, []string{"run"}) {
		t.Errorf("entrypoint %q cmd %q", c.Entrypoint, c.Cmd)
	}
	if c.User != "65532:65532" || c.WorkingDir != "/data" {
		t.Errorf("user %q workdir %q", c.User, c.WorkingDir)
	}
	if _, ok := c.ExposedPorts["7700/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v", c.ExposedPorts)
	}
	for _, want := range []string{"RECOLLECT_DATA_DIR=/data", "RECOLLECT_HTTP_ADDR=0.0.0.0:7700"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("env %q lacks %s", c.Env, want)
		}
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  "v1.2.3",
		"org.opencontainers.image.revision": "abc123",
		"org.opencontainers.image.source":   "https://github.com/recollect-dev/recollect",
		"org.opencontainers.image.licenses": "Apache-2.0",
	} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}

	layers, err := loaded.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers = %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got := map[string]*tar.Header{}
	content := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = h
		b, _ := io.ReadAll(tr)
		content[h.Name] = string(b)
	}
	for n := range bins {
		h := got["usr/local/bin/"+n]
		if h == nil {
			t.Errorf("usr/local/bin/%s missing", n)
			continue
		}
		if h.Typeflag != tar.TypeReg || h.Mode != 0o755 || h.Uid != 0 || content[h.Name] != "#stub "+n {
			t.Errorf("%s: type %c mode %o uid %d content %q", h.Name, h.Typeflag, h.Mode, h.Uid, content[h.Name])
		}
	}
	for _, n := range modules {
		h := got["usr/local/bin/"+n]
		switch {
		case h == nil:
			t.Errorf("usr/local/bin/%s missing", n)
		case h.Typeflag != tar.TypeSymlink || h.Linkname != "recollect" || h.Size != 0 || h.Uid != 0:
			t.Errorf("usr/local/bin/%s: type %c → %q size %d uid %d, want a symlink to recollect", n, h.Typeflag, h.Linkname, h.Size, h.Uid)
		}
	}
	var bin []string
	for n := range got {
		if strings.HasPrefix(n, "usr/local/bin/") && n != "usr/local/bin/" {
			bin = append(bin, strings.TrimPrefix(n, "usr/local/bin/"))
		}
	}
	slices.Sort(bin)
	if want := append([]string{"recollect"}, modules...); !slices.Equal(bin, slices.Sorted(slices.Values(want))) {
		t.Errorf("usr/local/bin holds %v, want %v", bin, want)
	}
	if h := got["data/"]; h == nil || h.Typeflag != tar.TypeDir || h.Uid != UID || h.Gid != GID {
		t.Errorf("data/ = %+v, want a directory owned by %d:%d", h, UID, GID)
	}
	if h := got["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("tmp/ = %+v", h)
	}
	if h := got["etc/ssl/certs/ca-certificates.crt"]; h == nil || content[h.Name] != "-----BEGIN CERTIFICATE-----\n" {
		t.Errorf("CA bundle = %+v", h)
	}
	if h := got["usr/local/"]; h == nil || h.Typeflag != tar.TypeDir {
		t.Errorf("parent directory usr/local/ missing: %+v", h)
	}
	if content["etc/passwd"] != "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/data:/sbin/nologin\n" {
		t.Errorf("passwd = %q", content["etc/passwd"])
	}
	for n, h := range got {
		if !h.ModTime.Equal(created) {
			t.Errorf("%s mtime %v, want %v", n, h.ModTime, created)
		}
	}
}

func TestBuildRefusesMissingEntrypoint(t *testing.T) {
	_, err := Entries(Spec{Binaries: map[string]string{"ingest": "/x"}})
	if err == nil {
		t.Fatal("no error without the recollect binary")
	}
	_, err = Entries(Spec{Binaries: map[string]string{"recollect": "/x", "../evil": "/y"}})
	if err == nil {
		t.Fatal("no error for a binary name with a path")
	}
}

func TestBuildRefusesBadAliases(t *testing.T) {
	for _, aliases := range [][]string{{"../ingest"}, {""}, {"recollect"}, {"ingest", "ingest"}} {
		if _, err := Entries(Spec{Binaries: map[string]string{"recollect": "/x"}, Aliases: aliases}); err == nil {
			t.Errorf("aliases %q accepted", aliases)
		}
	}
}

func TestLayerRefusesDuplicates(t *testing.T) {
	err := writeLayer(io.Discard, []Entry{{Path: "/a", Data: []byte("1")}, {Path: "a", Data: []byte("2")}}, time.Time{})
	if err == nil {
		t.Fatal("duplicate path accepted")
	}
}
