// Package bench holds the harnesses of `recollect bench`: each runs a part
// of Recollect in this process on a synthetic or generated corpus and
// measures it (ingest, extract, embed, store, recall, learn, consolidate,
// import, drain), returning a result the command prints. The cobra
// commands, their flags and their output live in pkg/cli; phases draw
// progress bars through WithBars.
package bench
