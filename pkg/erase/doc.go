// Package erase carries a subject purge (an erasure request) to every place
// Recollect keeps a copy of what was said: the store's files, the audit
// log, the pipeline's streams, the topic trees, the embedding caches. Each
// place is a Place; an Eraser runs them in order within a bound and keeps
// a Receipt saying, per place, what was erased and what could not be and
// why. A purge that does not finish while the request waits continues in
// the background; its receipt is read by id.
package erase
