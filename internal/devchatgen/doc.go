// Package devchatgen generates DevChat, Recollect's second retrieval
// evaluation set: long, code-heavy, multi-session conversations between a
// developer and a coding assistant ("Sage") about a few projects, with
// questions whose evidence turns are known. Facts change between sessions
// (a port, a version, a coverage figure, a library, a deadline), and update
// questions list both the current and the stale evidence; temporal
// questions name a session by date, ordinal or a phrase relative to the
// conversation's as_of ("last week").
//
// Everything comes from templates and one seeded random source, so the same
// options always give the same set. The committed copy is regenerated with
//
//	go generate ./internal/devchatgen
package devchatgen

//go:generate go run ./gen -out ../../testdata/devchat/devchat.json.gz
//go:generate go run ./gen -classes -out ../../testdata/devchat/devchat-classes.json.gz
//go:generate go run ./gen -aliases -out ../../testdata/devchat/devchat-aliases.json.gz
//go:generate go run ./gen -names -out ../../testdata/devchat/devchat-names.json.gz
