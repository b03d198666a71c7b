package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recollect-dev/recollect/pkg/auditlog"
)

var _ auditlog.Redactor = (*Log)(nil)

// Redact rewrites every day file holding an entry of the tenant that names
// one of ids, with that entry redacted (auditlog.Entry.Redacted): a new
// file is written, fsynced and renamed over the old one, so the words are
// in no file afterwards. A torn line that names one of the ids is dropped
// (it cannot be read, so it cannot be redacted). Appends wait meanwhile.
func (l *Log) Redact(ctx context.Context, tenant string, ids []string) (int, error) {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	names, err := filepath.Glob(filepath.Join(l.dir, filePrefix+"*"+fileSuffix))
	if err != nil {
		return 0, fmt.Errorf("list audit files: %w", err)
	}
	total := 0
	for _, path := range names {
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("redact audit entries: %w", err)
		}
		n, err := redactFile(path, tenant, set, ids)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// redactFile rewrites path when a line needs redacting.
func redactFile(path, tenant string, set map[string]bool, ids []string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	var out bytes.Buffer
	out.Grow(len(data))
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e auditlog.Entry
		switch {
		case json.Unmarshal(line, &e) != nil:
			if namesAny(line, ids) {
				n++
				continue
			}
		case e.Tenant == tenant && e.Names(set):
			red, err := json.Marshal(e.Redacted())
			if err != nil {
				return 0, fmt.Errorf("encode redacted entry: %w", err)
			}
			line = red
			n++
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("scan %s: %w", path, err)
	}
	if n == 0 {
		return 0, nil
	}
	if err := replaceFile(path, out.Bytes()); err != nil {
		return 0, err
	}
	return n, nil
}

func namesAny(line []byte, ids []string) bool {
	s := string(line)
	for _, id := range ids {
		if strings.Contains(s, id) {
			return true
		}
	}
	return false
}

// replaceFile writes data to a temporary file next to path, fsyncs it and
// renames it over path.
func replaceFile(path string, data []byte) error {
	tmp := path + ".redact"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("rewrite %s: %w", path, err)
	}
	return nil
}
