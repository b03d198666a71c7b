package local

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// On disk: snap-N.dat holds every record written to logs numbered below N;
// wal-N.log files hold what came after, replayed in order. A file ending in
// .tmp is a snapshot that was never finished.
const (
	walPrefix  = "wal-"
	walSuffix  = ".log"
	snapPrefix = "snap-"
	snapSuffix = ".dat"
	tmpSuffix  = ".tmp"
	lockName   = "LOCK"
)

func walPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%020d%s", walPrefix, seq, walSuffix))
}

func snapPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%020d%s", snapPrefix, seq, snapSuffix))
}

// dirFiles is what a store directory holds, numbers ascending.
type dirFiles struct {
	wals  []uint64
	snaps []uint64
	tmps  []string
}

func listDir(dir string) (dirFiles, error) {
	var df dirFiles
	ents, err := os.ReadDir(dir)
	if err != nil {
		return df, fmt.Errorf("list store dir %s: %w", dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, tmpSuffix):
			df.tmps = append(df.tmps, filepath.Join(dir, name))
		case strings.HasPrefix(name, walPrefix) && strings.HasSuffix(name, walSuffix):
			if n, ok := parseSeq(name, walPrefix, walSuffix); ok {
				df.wals = append(df.wals, n)
			}
		case strings.HasPrefix(name, snapPrefix) && strings.HasSuffix(name, snapSuffix):
			if n, ok := parseSeq(name, snapPrefix, snapSuffix); ok {
				df.snaps = append(df.snaps, n)
			}
		}
	}
	sort.Slice(df.wals, func(i, j int) bool { return df.wals[i] < df.wals[j] })
	sort.Slice(df.snaps, func(i, j int) bool { return df.snaps[i] < df.snaps[j] })
	return df, nil
}

func parseSeq(name, prefix, suffix string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, prefix), suffix), 10, 64)
	return n, err == nil
}

// syncDir makes creations, renames and removals in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}

// removeBelow deletes logs and snapshots numbered below seq: a snapshot
// numbered seq holds all of them.
func removeBelow(dir string, seq uint64) error {
	df, err := listDir(dir)
	if err != nil {
		return err
	}
	for _, n := range df.wals {
		if n < seq {
			if err := os.Remove(walPath(dir, n)); err != nil {
				return fmt.Errorf("remove old wal: %w", err)
			}
		}
	}
	for _, n := range df.snaps {
		if n < seq {
			if err := os.Remove(snapPath(dir, n)); err != nil {
				return fmt.Errorf("remove old snapshot: %w", err)
			}
		}
	}
	return syncDir(dir)
}
