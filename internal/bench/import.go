package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/recollect-dev/recollect/pkg/app"
	"github.com/recollect-dev/recollect/pkg/client"
	"github.com/recollect-dev/recollect/pkg/embed/minilm"
	"github.com/recollect-dev/recollect/pkg/query"
)

// benchImportTenant is the tenant `recollect bench import` fills.
const benchImportTenant = "bench-import"

// MemSample is the process's memory at one point of `recollect bench
// import`: resident memory (VmRSS) and its anonymous and file-backed
// parts (RssAnon; RssFile with RssShmem: the store's mapped vectors among
// them), its peak so far (VmHWM) and the Go heap in use, in MB.
type MemSample struct {
	RSSMB     float64 `json:"rss_mb"`
	RSSAnonMB float64 `json:"rss_anon_mb"`
	RSSFileMB float64 `json:"rss_file_mb"`
	PeakMB    float64 `json:"peak_rss_mb"`
	HeapMB    float64 `json:"heap_inuse_mb"`
	GoHeapMB  float64 `json:"heap_alloc_mb"`
}

// ImportResult is what `recollect bench import --json` prints. Per-memory
// figures are over the empty app's: (state - empty) / memories.
type ImportResult struct {
	Memories    int      `json:"memories"`
	Targets     []string `json:"targets"`
	FileMB      float64  `json:"file_mb"`
	ImportS     float64  `json:"import_s"`
	PerSecond   float64  `json:"memories_per_s"`
	Imported    int      `json:"imported"`
	Skipped     int      `json:"skipped"`
	ReimportS   float64  `json:"reimport_s,omitempty"`
	Reskipped   int      `json:"reimport_skipped,omitempty"`
	StoreDiskMB float64  `json:"store_disk_mb"`
	DataDiskMB  float64  `json:"data_dir_disk_mb"`
	// DiskBytesPerMemory is the store directory's size over memories.
	DiskBytesPerMemory float64 `json:"disk_bytes_per_memory"`

	Empty       MemSample `json:"empty"`        // a fresh app on an empty data dir
	AfterImport MemSample `json:"after_import"` // right after the import answered
	// AfterImportSettled is a few seconds later, once the server has
	// returned what the import freed (query.DefaultImportReleaseDelay).
	AfterImportSettled MemSample `json:"after_import_settled"`
	AfterFree          MemSample `json:"after_free"`    // then runtime.GC and debug.FreeOSMemory
	AfterRestart       MemSample `json:"after_restart"` // a new process opening the data dir, after GC
	// AfterRestartOpen is that process right after opening, before the GC.
	AfterRestartOpen MemSample `json:"after_restart_open"`
	// Ratio is AfterImportSettled.RSSMB / AfterRestart.RSSMB (the target
	// is 1.2 or less); RatioOpen is over AfterRestartOpen, RatioAnswered
	// AfterImport over AfterRestart.
	Ratio         float64 `json:"import_over_restart"`
	RatioOpen     float64 `json:"import_over_restart_open"`
	RatioAnswered float64 `json:"import_answered_over_restart"`
	// Bytes per stored memory in memory, over the empty app.
	BytesPerMemoryImport  float64 `json:"rss_bytes_per_memory_after_import"`
	BytesPerMemoryRestart float64 `json:"rss_bytes_per_memory_after_restart"`
	HeapProfile           string  `json:"heap_profile,omitempty"`
	Note                  string  `json:"note"`
	Machine               Machine `json:"machine"`
}

const importNote = "a generated NDJSON file (random unit vectors of the built-in model's width, so nothing is embedded again) " +
	"imported through POST /v1/import with the Go client (the path of recollect import) into `recollect run` in this process; " +
	"after_restart is a child process opening the same data dir; resident memory from /proc/self/status"

// BenchImport starts the app on an empty data dir, imports n generated
// memories with vectors through the HTTP door, samples memory and disk,
// and has a child process reopen the data dir.
func BenchImport(ctx context.Context, n int, reimport bool, heapProfile string, targets []string) (ImportResult, error) {
	if n < 1 {
		return ImportResult{}, errNeed("memories >= 1")
	}
	res := ImportResult{Memories: n, Targets: targets, Note: importNote, Machine: ThisMachine()}
	dir, err := os.MkdirTemp("", "recollect-bench-import-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "import.ndjson")
	if err := writeImportFile(ctx, file, n); err != nil {
		return res, err
	}
	if fi, err := os.Stat(file); err == nil {
		res.FileMB = float64(fi.Size()) / (1 << 20)
	}
	data := filepath.Join(dir, "data")
	a, err := startBenchRun(ctx, data, targets)
	if err != nil {
		return res, err
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = a.Stop(context.WithoutCancel(ctx))
		}
	}()
	freeMemory()
	if res.Empty, err = memSample(); err != nil {
		return res, err
	}
	c := client.New(a.Web().URL(), client.WithTenant(benchImportTenant), client.WithHTTPClient(&http.Client{}))
	begin := time.Now()
	resp, err := importFile(ctx, c, file)
	if err != nil {
		return res, err
	}
	res.ImportS = time.Since(begin).Seconds()
	res.PerSecond = float64(n) / res.ImportS
	res.Imported, res.Skipped = resp.Imported, resp.Skipped
	if res.AfterImport, err = memSample(); err != nil {
		return res, err
	}
	time.Sleep(query.DefaultImportReleaseDelay + 2*time.Second)
	if res.AfterImportSettled, err = memSample(); err != nil {
		return res, err
	}
	if reimport {
		begin = time.Now()
		again, err := importFile(ctx, c, file)
		if err != nil {
			return res, fmt.Errorf("import again: %w", err)
		}
		res.ReimportS, res.Reskipped = time.Since(begin).Seconds(), again.Skipped
	}
	freeMemory()
	if res.AfterFree, err = memSample(); err != nil {
		return res, err
	}
	if heapProfile != "" {
		if err := writeHeapProfile(heapProfile + ".import"); err != nil {
			return res, err
		}
	}
	stopped = true
	if err := a.Stop(context.WithoutCancel(ctx)); err != nil {
		return res, fmt.Errorf("stop the app: %w", err)
	}
	res.StoreDiskMB = dirMB(filepath.Join(data, "store"))
	res.DataDiskMB = dirMB(data)
	res.DiskBytesPerMemory = res.StoreDiskMB * (1 << 20) / float64(n)
	two, err := reopenChild(ctx, data, heapProfile, targets)
	if err != nil {
		return res, err
	}
	res.AfterRestartOpen, res.AfterRestart = two[0], two[1]
	res.HeapProfile = heapProfile
	if res.AfterRestart.RSSMB > 0 && res.AfterRestartOpen.RSSMB > 0 {
		res.Ratio = res.AfterImportSettled.RSSMB / res.AfterRestart.RSSMB
		res.RatioOpen = res.AfterImportSettled.RSSMB / res.AfterRestartOpen.RSSMB
		res.RatioAnswered = res.AfterImport.RSSMB / res.AfterRestart.RSSMB
	}
	per := func(s MemSample) float64 { return (s.RSSMB - res.Empty.RSSMB) * (1 << 20) / float64(n) }
	res.BytesPerMemoryImport, res.BytesPerMemoryRestart = per(res.AfterImportSettled), per(res.AfterRestart)
	return res, nil
}

// startBenchRun starts the targets, as `recollect run --target` does, on
// dataDir.
func startBenchRun(ctx context.Context, dataDir string, targets []string) (*app.App, error) {
	var cfg app.Config
	cfg.RegisterFlags(pflag.NewFlagSet("bench", pflag.ContinueOnError), "")
	cfg.DataDir = dataDir
	cfg.Targets = targets
	cfg.Web.Addr = "127.0.0.1:0"
	a, err := app.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	if err := a.Start(ctx); err != nil {
		return nil, fmt.Errorf("start the app on %s: %w", dataDir, err)
	}
	return a, nil
}

// writeImportFile writes n memories of one tenant with vectors of the
// built-in model, as recollect export --vectors would.
func writeImportFile(ctx context.Context, path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	c := newCorpus(1)
	bar := phaseProgress(ctx, n, "writing the file", "memories")
	for i := range n {
		m := c.memory(i)
		m.ID = "imp-" + strconv.Itoa(i)
		m.Tenant = benchImportTenant
		m.EmbeddingModel = minilm.ModelName
		if err := enc.Encode(m); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		bar.Add(1)
	}
	bar.End()
	if err := errors.Join(bw.Flush(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func importFile(ctx context.Context, c *client.Client, path string) (resp struct{ Imported, Skipped int }, err error) {
	f, err := os.Open(path)
	if err != nil {
		return resp, err
	}
	defer f.Close()
	r, err := c.Import(ctx, "", f)
	if err != nil {
		return resp, fmt.Errorf("import %s: %w", path, err)
	}
	resp.Imported, resp.Skipped = r.Imported, r.Skipped
	return resp, nil
}

// reopenChild runs this program again to open dataDir in a new process
// and returns its sample.
func reopenChild(ctx context.Context, dataDir, heapProfile string, targets []string) ([2]MemSample, error) {
	var s [2]MemSample
	exe, err := os.Executable()
	if err != nil {
		return s, fmt.Errorf("find this program: %w", err)
	}
	args := []string{"bench", "import", "--reopen", dataDir, "--target", strings.Join(targets, ",")}
	if heapProfile != "" {
		args = append(args, "--heap-profile", heapProfile)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return s, fmt.Errorf("reopen %s in a child process: %w", dataDir, err)
	}
	if err := json.Unmarshal(out, &s); err != nil {
		return s, fmt.Errorf("read the child's samples %q: %w", out, err)
	}
	return s, nil
}

// ReopenSample is the child: open the data dir as `recollect run` does,
// sample, collect garbage and sample again; write a heap profile when
// asked.
func ReopenSample(ctx context.Context, dataDir, heapProfile string, targets []string) ([2]MemSample, error) {
	var s [2]MemSample
	a, err := startBenchRun(ctx, dataDir, targets)
	if err != nil {
		return s, err
	}
	defer a.Stop(context.WithoutCancel(ctx))
	if s[0], err = memSample(); err != nil {
		return s, err
	}
	freeMemory()
	if s[1], err = memSample(); err != nil || heapProfile == "" {
		return s, err
	}
	return s, writeHeapProfile(heapProfile)
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write heap profile: %w", err)
	}
	if err := errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close()); err != nil {
		return fmt.Errorf("write heap profile %s: %w", path, err)
	}
	return nil
}

func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func memSample() (MemSample, error) {
	rss, err := procStatusMB("VmRSS:")
	if err != nil {
		return MemSample{}, err
	}
	hwm, err := procStatusMB("VmHWM:")
	if err != nil {
		return MemSample{}, err
	}
	anon, _ := procStatusMB("RssAnon:")
	file, _ := procStatusMB("RssFile:")
	shmem, _ := procStatusMB("RssShmem:")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return MemSample{RSSMB: rss, RSSAnonMB: anon, RSSFileMB: file + shmem, PeakMB: hwm,
		HeapMB: float64(ms.HeapInuse) / (1 << 20), GoHeapMB: float64(ms.HeapAlloc) / (1 << 20)}, nil
}

// dirMB is the size of the files under dir.
func dirMB(dir string) float64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return float64(total) / (1 << 20)
}
