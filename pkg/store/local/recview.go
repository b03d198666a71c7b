package local

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/recollect-dev/recollect/pkg/memory"
)

// recView reads the fields that filters and the text index test straight
// from a record's binary encoding (recordbin.go), without decoding it. A
// malformed record reads as empty fields; the arena holds only records
// appendMemoryBinary wrote.
type recView struct {
	b   []byte
	off int
}

func (v *recView) uvarint() uint64 {
	x, n := binary.Uvarint(v.b[v.off:])
	if n <= 0 {
		v.off = len(v.b)
		return 0
	}
	v.off += n
	return x
}

func (v *recView) bytes() []byte {
	n := v.uvarint()
	if n > uint64(len(v.b)-v.off) {
		v.off = len(v.b)
		return nil
	}
	s := v.b[v.off : v.off+int(n) : v.off+int(n)]
	v.off += int(n)
	return s
}

func (v *recView) skipStrings(n int) {
	for range n {
		v.bytes()
	}
}

// Fields in encoding order, as appendMemoryBinary writes them.
const (
	fieldsBeforeKey    = 6 // ID, Tenant, Namespace, Subject, Channel, Session
	fieldsKeyToNumbers = 6 // Key, Content, Domain, Type, Kind, Layer
	bytesOfFloats      = 16
	varintsBeforeTags  = 3
)

// recID returns the record's id.
func recID(rec []byte) []byte {
	v := recView{b: rec}
	return v.bytes()
}

// recKey returns the record's key.
func recKey(rec []byte) []byte {
	v := recView{b: rec}
	v.skipStrings(fieldsBeforeKey)
	return v.bytes()
}

// recText returns the record's key and content and a view positioned at
// its tags (see nextTag).
func recText(rec []byte) (key, content []byte, tags recView, ntags int) {
	v := recView{b: rec}
	v.skipStrings(fieldsBeforeKey)
	key, content = v.bytes(), v.bytes()
	v.skipStrings(fieldsKeyToNumbers - 2)
	v.off = min(len(v.b), v.off+bytesOfFloats)
	for range varintsBeforeTags {
		v.uvarint()
	}
	ntags = int(min(v.uvarint(), uint64(len(v.b)-v.off)))
	return key, content, v, ntags
}

// recHasAnyTag reports whether the record has one of want as a tag.
func recHasAnyTag(rec []byte, want []string) bool {
	_, _, v, n := recText(rec)
	for range n {
		tag := v.bytes()
		if slices.ContainsFunc(want, func(w string) bool { return w == string(tag) }) {
			return true
		}
	}
	return false
}

// recSameText reports whether the record is indexed by the same text as m
// (lexical.SameText).
func recSameText(rec []byte, m *memory.Memory) bool {
	key, content, v, n := recText(rec)
	if string(key) != m.Key || string(content) != m.Content || n != len(m.Tags) {
		return false
	}
	for _, t := range m.Tags {
		if string(v.bytes()) != t {
			return false
		}
	}
	return true
}

// viewString returns b as a string without copying. The string aliases
// the arena: only for comparisons made while the partition's lock is held,
// never to keep (nor as a map key to store: an assignment may keep it).
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
