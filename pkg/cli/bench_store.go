package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recollect-dev/recollect/internal/bench"
	"github.com/recollect-dev/recollect/pkg/store/local"
)

func newBenchStoreCmd() *cobra.Command {
	var (
		opt    bench.StoreOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Local store: hybrid search latency, exactness, insert rate, reopen time and footprint on synthetic memories",
		Args:  cobra.NoArgs,
	}
	cmd.Flags().IntVar(&opt.Memories, "memories", 100_000, "memories to insert")
	cmd.Flags().IntVar(&opt.Tenants, "tenants", 1, "tenants the memories are spread over (round robin)")
	cmd.Flags().IntVar(&opt.Queries, "queries", 1000, "hybrid searches to time")
	cmd.Flags().IntVar(&opt.RecallQueries, "recall-queries", 50, "queries checked against a brute-force scan")
	cmd.Flags().IntVar(&opt.K, "k", 10, "hits per channel")
	cmd.Flags().IntVar(&opt.ApproxMinRows, "approx-min-rows", local.DefaultConfig().ApproxMinRows,
		"candidate rows from which the store searches approximately (0: always exact)")
	cmd.Flags().IntVar(&opt.IndexMinRows, "index-min-rows", local.DefaultConfig().IndexMinRows,
		"vectors from which a tenant is searched through an IVF index (0: never)")
	cmd.Flags().StringVar(&opt.Vectors, "vectors", bench.VectorsText,
		"vector source: text (mixes of 2-3 sentences embedded by the built-in model, plus noise; the base embeddings are cached in the temporary directory) or random (unit vectors: no structure, the worst case for the IVF index)")
	cmd.Flags().StringVar(&opt.Dir, "dir", "", "directory for the store (default: a temporary one, removed afterwards)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&opt.Reuse, "reuse", false,
		"with --dir: time the store already there (filled by a run with the same --memories, --tenants and --vectors) instead of filling it")
	cmd.Flags().StringVar(&opt.CPUProfile, "cpuprofile", "", "write a CPU profile of the timed searches to this file")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		res, err := bench.BenchStore(cmd.Context(), opt)
		if err != nil {
			return err
		}
		res.Machine = bench.ThisMachine()
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(res)
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "memories          %d over %d tenants (%d per tenant)\n", res.Memories, res.Tenants, res.TenantMemories)
		fmt.Fprintf(w, "hybrid top-%d      p50 %.2f ms, p99 %.2f ms (dense p50 %.2f, text p50 %.2f)\n", res.K, res.P50Ms, res.P99Ms, res.DenseP50Ms, res.TextP50Ms)
		fmt.Fprintf(w, "recall@10         %.3f vs exact search (%d queries; exact vs brute force %.3f)\n", res.RecallAt10, res.RecallQueries, res.ExactRecallAt10)
		tl := res.Tail
		fmt.Fprintf(w, "slowest %-9d from %.2f ms: CPU/wall %.2f (rest %.2f), faults %.1f minor %.2f major (rest %.1f, %.2f), "+
			"a collection in %.0f%% (rest %.0f%%), slow again alone %.0f%%; %d collections, steal %.1f%%\n",
			tl.SlowQueries, tl.SlowFromMs, tl.SlowCPUOverWall, tl.RestCPUOverWall, tl.SlowMinorFaults, tl.SlowMajorFaults,
			tl.RestMinorFaults, tl.RestMajorFaults, 100*tl.SlowDuringGC, 100*tl.RestDuringGC, 100*tl.SlowRepeat, tl.GCCycles, 100*tl.StealShare)
		fmt.Fprintf(w, "exact dense       p50 %.2f ms, p99 %.2f ms\n", res.ExactP50Ms, res.ExactP99Ms)
		fmt.Fprintf(w, "scan floor        %.3f ms (dense search %.1f×, exact search %.1f× the floor)\n", res.ScanFloorMs, res.DenseOverFloor, res.ExactOverFloor)
		fmt.Fprintf(w, "inserts           %.0f memories/s (batches of %d)\n", res.InsertsPerSec, res.UpsertBatch)
		fmt.Fprintf(w, "reopen            %.2f s\n", res.ReopenS)
		fmt.Fprintf(w, "index             %d tenants indexed (%d trainings, last %.1f s, waited %.1f s; %s vectors)\n",
			res.IndexedTenants, res.IndexTrainings, res.IndexTrainS, res.IndexWaitS, res.Vectors)
		b := res.BytesPerMemory
		fmt.Fprintf(w, "bytes/memory      %.0f on disk, %.0f heap, %.0f mapped vectors\n", b.Disk, b.Heap, b.Mapped)
		fmt.Fprintf(w, "resident/memory   %.0f anonymous, %.0f file after reopening (%.0f file after the searches)\n", b.RSSAnon, b.RSSFile, b.RSSFileSearched)
		fmt.Fprintf(w, "machine           %s\n", res.Machine)
		fmt.Fprintf(w, "note              %s\n", res.Note)
		return nil
	}
	return cmd
}
