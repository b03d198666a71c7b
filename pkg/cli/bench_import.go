package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
	"github.com/recollect-dev/recollect/pkg/app"
)

func newBenchImportCmd() *cobra.Command {
	var (
		n        int
		asJSON   bool
		reimport bool
		heap     string
		reopen   string
		targets  []string
	)
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Resident memory and disk per memory: import a generated NDJSON with vectors over HTTP, then reopen the data dir in a new process",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&n, "memories", 100_000, "memories in the generated file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&reimport, "reimport", true, "import the same file again and count the skipped (idempotence)")
	cmd.Flags().StringVar(&heap, "heap-profile", "", "write a heap profile of the reopened process (after GC) to this file, and one after the import (after GC) to this file + .import")
	cmd.Flags().StringSliceVar(&targets, "target", []string{app.TargetAll}, "modules to run, as recollect run --target "+
		"(query alone leaves out what reacts to the import afterwards: topics, consolidation)")
	// The child process of the restart measurement.
	cmd.Flags().StringVar(&reopen, "reopen", "", "")
	_ = cmd.Flags().MarkHidden("reopen")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if reopen != "" {
			s, err := bench.ReopenSample(cmd.Context(), reopen, heap, targets)
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(s)
		}
		res, err := bench.BenchImport(cmd.Context(), n, reimport, heap, targets)
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "modules           %s\n", strings.Join(res.Targets, ","))
		fmt.Fprintf(w, "memories          %d (file %.0f MB), imported in %.1f s (%.0f/s)\n", res.Memories, res.FileMB, res.ImportS, res.PerSecond)
		if res.ReimportS > 0 {
			fmt.Fprintf(w, "re-import         %.1f s, %d skipped unchanged\n", res.ReimportS, res.Reskipped)
		}
		fmt.Fprintf(w, "disk              store %.0f MB (%.0f bytes/memory), data dir %.0f MB\n", res.StoreDiskMB, res.DiskBytesPerMemory, res.DataDiskMB)
		for _, s := range []struct {
			label string
			m     bench.MemSample
		}{{"empty app", res.Empty}, {"import answered", res.AfterImport}, {"import settled", res.AfterImportSettled},
			{"after GC+free", res.AfterFree}, {"restart, opened", res.AfterRestartOpen}, {"restart, GC", res.AfterRestart}} {
			fmt.Fprintf(w, "%-17s rss %.0f MB (anon %.0f, file %.0f; peak %.0f), heap in use %.0f MB\n",
				s.label, s.m.RSSMB, s.m.RSSAnonMB, s.m.RSSFileMB, s.m.PeakMB, s.m.HeapMB)
		}
		fmt.Fprintf(w, "import/restart    %.2f settled over restart after GC (target <= 1.2); %.2f over restart as opened; %.2f as answered\n",
			res.Ratio, res.RatioOpen, res.RatioAnswered)
		fmt.Fprintf(w, "bytes/memory      %.0f after import, %.0f after restart (resident, over the empty app)\n", res.BytesPerMemoryImport, res.BytesPerMemoryRestart)
		if res.HeapProfile != "" {
			fmt.Fprintf(w, "heap profile      %s (go tool pprof -top -sample_index=inuse_space)\n", res.HeapProfile)
		}
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}
