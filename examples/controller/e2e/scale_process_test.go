//go:build e2e && scale

package e2e

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pid is the /proc entry of the process the controller runs in: its own, or this test's.
func (s *stack) pid() string {
	if s.proc != nil {
		return strconv.Itoa(s.proc.pid)
	}
	return "self"
}

// heapMiB is the Go heap in use of the controller's process: its go_memstats_heap_inuse_bytes in
// process mode, this process's (controller, simulated Azure and kubelets, the suite) otherwise.
func (s *stack) heapMiB(t *testing.T) float64 {
	t.Helper()
	if s.proc == nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapInuse) / (1 << 20)
	}
	families, err := s.metrics.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == "go_memstats_heap_inuse_bytes" && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue() / (1 << 20)
		}
	}
	require.FailNow(t, "the controller's /metrics has no go_memstats_heap_inuse_bytes")
	return 0
}

// saveHeapProfile writes the controller process's heap profile (after a GC) to path, for
// `go tool pprof` to say what holds the memory (docs/benchmarks.md, issue 18).
func (p *controllerProcess) saveHeapProfile(t *testing.T, path string) {
	t.Helper()
	resp, err := http.Get(p.pprof + "/debug/pprof/heap?gc=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f, err := os.Create(path)
	require.NoError(t, err, "NAPKIT_SCALE_HEAP_PROFILE=%s", path)
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	require.NoError(t, err)
	t.Logf("controller heap profile: %s (go tool pprof -sample_index=inuse_space -top %s)", path, path)
}

// compareRestarts restarts the controller from p.compareBinary, then from the suite's binary, and
// measures each idle for p.steady after a settling window (the cold start's list of every pod and
// node, its first passes): a before/after of a controller change on the same cluster, both from a
// cold start, without a second 20-minute scale-up. Stopping the first controller also checks, at
// full size, that it stops within stopPrompt.
func compareRestarts(t *testing.T, s *stack, p scaleParams, r *scaleReport) {
	t.Helper()
	for _, run := range []struct{ name, bin string }{{"compare", p.compareBinary}, {"suite", ""}} {
		s.stopController()
		s.ctrl = s.startProcessFrom(run.bin)
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(restartSettle):
		}
		profile := ""
		if p.heapProfile != "" {
			profile = p.heapProfile + "." + run.name
		}
		f := measureSteady(t, s, p.steady, profile)
		f.Binary = run.name
		r.Restarts = append(r.Restarts, f)
		t.Logf("restarted from the %s binary: %.2f requests/s, %.3f cores, RSS %.0f MiB (peak %.0f MiB, heap %.0f MiB), reconcile mean %.2f ms over %d",
			run.name, f.RequestsPerSecond, f.CPUCores, f.RSSMiB, f.HWMMiB, f.HeapMiB, f.ReconcileMeanMillis, f.ReconcileCount)
	}
}

// restartSettle is how long a restarted controller runs before it is measured.
const restartSettle = 30 * time.Second
