// Command gen writes the DevChat evaluation set (go generate
// ./internal/devchatgen).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/recollect-dev/recollect/internal/devchatgen"
)

func main() {
	o := devchatgen.DefaultOptions()
	if len(os.Args) > 1 && os.Args[1] == "-classes" {
		o = devchatgen.ClassesOptions()
	}
	if len(os.Args) > 1 && os.Args[1] == "-aliases" {
		o = devchatgen.AliasesOptions()
	}
	if len(os.Args) > 1 && os.Args[1] == "-names" {
		o = devchatgen.NamesOptions()
	}
	flag.Bool("classes", false, "the devchat-classes set (issue 21's classes as well); must come first")
	flag.Bool("aliases", false, "the devchat-aliases set (pets and relatives by name and by word); must come first")
	flag.Bool("names", false, "the devchat-names set (suggested cities, books, conferences, restaurants, languages); must come first")
	out := flag.String("out", "devchat.json.gz", "file to write (gzip-compressed JSON)")
	flag.Uint64Var(&o.Seed, "seed", o.Seed, "random seed")
	flag.IntVar(&o.Conversations, "conversations", o.Conversations, "conversations to generate")
	flag.Parse()
	if err := run(o, *out); err != nil {
		fmt.Fprintln(os.Stderr, "devchat gen:", err)
		os.Exit(1)
	}
}

func run(o devchatgen.Options, out string) error {
	set, err := devchatgen.Generate(o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := devchatgen.WriteGzip(&buf, set); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	turns, questions := 0, 0
	for _, c := range set.Conversations {
		questions += len(c.Questions)
		for _, s := range c.Sessions {
			turns += len(s.Turns)
		}
	}
	fmt.Printf("wrote %s: %d conversations, %d turns, %d questions\n", out, len(set.Conversations), turns, questions)
	return nil
}
