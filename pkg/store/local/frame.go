package local

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// A frame is a 4-byte little-endian payload length, the payload's CRC32C
// (Castagnoli) and the payload. Files start with an 8-byte magic.
const (
	frameHeaderLen = 8
	maxFrameLen    = 1 << 30
	magicLen       = 8
	walMagic       = "RCLWAL01"
	snapMagic      = "RCLSNP01"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errTorn marks the rest of a file as not one or more whole, valid frames:
// a write cut short by a crash, or garbage.
var errTorn = errors.New("torn or corrupt frame")

// newFrame returns an empty frame: room for the header, to which the payload
// is appended in place (a batch can be megabytes; it is not copied again).
func newFrame(payloadHint int) []byte {
	return make([]byte, frameHeaderLen, frameHeaderLen+payloadHint)
}

// sealFrame fills in the header of a frame from newFrame.
func sealFrame(f []byte) []byte {
	p := f[frameHeaderLen:]
	binary.LittleEndian.PutUint32(f[0:4], uint32(len(p)))
	binary.LittleEndian.PutUint32(f[4:8], crc32.Checksum(p, castagnoli))
	return f
}

// frameReader reads frames from a file of known size, tracking the offset
// just past the last valid frame so that a torn tail can be cut there.
type frameReader struct {
	r    *bufio.Reader
	off  int64
	size int64
}

func newFrameReader(r io.Reader, off, size int64) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 1<<20), off: off, size: size}
}

// next returns the next payload, io.EOF at a clean end, or errTorn.
func (fr *frameReader) next() ([]byte, error) {
	left := fr.size - fr.off
	if left == 0 {
		return nil, io.EOF
	}
	if left < frameHeaderLen {
		return nil, errTorn
	}
	var h [frameHeaderLen]byte
	if _, err := io.ReadFull(fr.r, h[:]); err != nil {
		return nil, readErr(err)
	}
	n := int64(binary.LittleEndian.Uint32(h[0:4]))
	// A zero length is what a zero-filled tail looks like after a crash.
	if n == 0 || n > maxFrameLen || n > left-frameHeaderLen {
		return nil, errTorn
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(fr.r, p); err != nil {
		return nil, readErr(err)
	}
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(h[4:8]) {
		return nil, errTorn
	}
	fr.off += frameHeaderLen + n
	return p, nil
}

func readErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTorn
	}
	return err
}
