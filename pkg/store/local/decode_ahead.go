package local

import "github.com/recollect-dev/recollect/pkg/lexical"

// decodeAheadFrames is how many decoded frames may wait for the applier.
const decodeAheadFrames = 4

// decodedFrame is one frame's payload decoded ahead of its use.
type decodedFrame struct {
	o         op
	lex       []lexical.SparseVector // opUpsert: the memories' lexical vectors
	off       int64                  // fr.off once the frame was read (or failed)
	err       error                  // from frameReader.next: io.EOF, errTorn, I/O
	decodeErr error                  // a whole frame whose payload did not decode
}

// decodeAhead reads, checks and decodes fr's frames and analyses their text
// on another goroutine, a few frames ahead of the caller applying them, so
// that a reopen uses both cores. The last frame sent carries an error (at
// the latest io.EOF). stop must be called before the file is closed.
func decodeAhead(fr *frameReader) (next func() decodedFrame, stop func()) {
	ch := make(chan decodedFrame, decodeAheadFrames)
	done := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			p, err := fr.next()
			d := decodedFrame{off: fr.off, err: err}
			if err == nil {
				d.o, d.decodeErr = decodeOp(p)
				if d.decodeErr == nil && d.o.kind == opUpsert {
					d.lex = memoryVectors(d.o.mems)
				}
			}
			select {
			case ch <- d:
			case <-done:
				return
			}
			if d.err != nil || d.decodeErr != nil {
				return
			}
		}
	}()
	next = func() decodedFrame { return <-ch }
	stop = func() {
		close(done)
		for range ch {
		}
	}
	return next, stop
}
