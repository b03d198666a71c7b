package cli

import (
	"path/filepath"
	"slices"
)

// moduleBinaries are the modules with an entry point of their own,
// cmd/<module>, each calling ModuleMain(<module>, ...).
var moduleBinaries = []string{"ingest", "extractor", "embedder", "consolidator", "topiary", "query"}

// ModuleBinaries lists the module names a recollect binary answers to when
// run under that name (a symlink /usr/local/bin/ingest → recollect, as in
// the container image).
func ModuleBinaries() []string { return slices.Clone(moduleBinaries) }

// ProgramModule maps a program name (os.Args[0]) to the module it runs:
// "/usr/local/bin/ingest" → ("ingest", true); "recollect" or any other name
// → ("", false), the full recollect command tree.
func ProgramModule(argv0 string) (string, bool) {
	base := filepath.Base(argv0)
	if slices.Contains(moduleBinaries, base) {
		return base, true
	}
	return "", false
}

// ProgramMain runs recollect as os.Args asks: under a module's name (see
// ProgramModule) exactly as that module's own binary, ModuleMain; otherwise
// the recollect command tree, Main.
func ProgramMain(args []string) int {
	if len(args) == 0 {
		return Main(nil)
	}
	if module, ok := ProgramModule(args[0]); ok {
		return ModuleMain(module, args[1:])
	}
	return Main(args[1:])
}
