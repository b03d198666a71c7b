// Package image builds Recollect's container image without a Docker daemon:
// one layer of static binaries, a non-root user and a /data directory on an
// empty base, written as a docker-loadable tarball.
package image

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"
)

// The image's user and group: distroless's "nonroot".
const (
	UID = 65532
	GID = 65532
)

// Entry is one file or directory of the layer.
type Entry struct {
	Path string // absolute path in the image, e.g. /usr/local/bin/recollect
	Dir  bool
	Mode int64
	UID  int
	GID  int
	// Link makes the entry a symbolic link to Link (relative to the link's
	// directory unless absolute); Src and Data are then ignored.
	Link string
	// Exactly one of Src (a file on this machine) and Data (the content) is
	// used for a file; both are ignored for a directory.
	Src  string
	Data []byte
}

// writeLayer writes entries as a tar stream, every entry stamped with
// modTime, parent directories first (root-owned, 0755) unless listed.
func writeLayer(w io.Writer, entries []Entry, modTime time.Time) error {
	byPath := map[string]Entry{}
	for _, e := range entries {
		p := path.Clean("/" + e.Path)
		if p == "/" {
			return fmt.Errorf("layer entry %q: the root is not an entry", e.Path)
		}
		if _, dup := byPath[p]; dup {
			return fmt.Errorf("layer entry %s listed twice", p)
		}
		e.Path = p
		byPath[p] = e
	}
	for _, e := range entries {
		for d := path.Dir(path.Clean("/" + e.Path)); d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = Entry{Path: d, Dir: true, Mode: 0o755}
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths) // a parent sorts before its children
	tw := tar.NewWriter(w)
	for _, p := range paths {
		if err := writeEntry(tw, byPath[p], modTime); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close layer tar: %w", err)
	}
	return nil
}

func writeEntry(tw *tar.Writer, e Entry, modTime time.Time) error {
	name := strings.TrimPrefix(e.Path, "/")
	hdr := &tar.Header{Name: name, Mode: e.Mode, Uid: e.UID, Gid: e.GID, ModTime: modTime, Format: tar.FormatPAX}
	if e.Dir {
		hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("layer directory %s: %w", e.Path, err)
		}
		return nil
	}
	if e.Link != "" {
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.Link
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("layer symlink %s → %s: %w", e.Path, e.Link, err)
		}
		return nil
	}
	hdr.Typeflag = tar.TypeReg
	if e.Src == "" {
		hdr.Size = int64(len(e.Data))
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("layer file %s: %w", e.Path, err)
		}
		if _, err := tw.Write(e.Data); err != nil {
			return fmt.Errorf("layer file %s: %w", e.Path, err)
		}
		return nil
	}
	f, err := os.Open(e.Src)
	if err != nil {
		return fmt.Errorf("layer file %s: %w", e.Path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("layer file %s: %w", e.Path, err)
	}
	hdr.Size = st.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("layer file %s: %w", e.Path, err)
	}
	if _, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("layer file %s from %s: %w", e.Path, e.Src, err)
	}
	return nil
}
