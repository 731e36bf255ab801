//go:build e2e

package e2e

import (
	"context"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/examples/controller/internal/controller"
	"github.com/napkit/napkit/examples/controller/internal/simnodes"
)

// processImage is the node image version the simulated galleries publish for a controller process
// (its AKSNodeClass status writer discovers it, as on Azure).
const processImage = "202611.01.0"

// azureServer is the simulated Azure served over HTTPS to a controller process, and the file
// holding its certificate (the process's SSL_CERT_FILE).
type azureServer struct {
	srv      *httptest.Server
	certFile string
}

// serveAzure serves the stack's simulated Azure over HTTPS for a controller process and publishes
// the node images its status writer looks for. It returns the version the simulated kubelets
// report: the control plane's, which the binary's nodes boot.
func (s *stack) serveAzure() string {
	t := s.t
	t.Helper()
	srv := httptest.NewTLSServer(s.sim.Handler())
	t.Cleanup(srv.Close)
	certFile := filepath.Join(t.TempDir(), "azuresim.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	require.NoError(t, os.WriteFile(certFile, cert, 0o644))
	s.azure = &azureServer{srv: srv, certFile: certFile}
	simnodes.PublishNodeImages(s.sim, processImage, time.Now().Add(-time.Hour))
	info, err := s.c.kube.Discovery().ServerVersion()
	require.NoError(t, err)
	return info.GitVersion
}

// controllerBinary builds the controller once per test binary run.
var controllerBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "napkit-e2e-controller-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "controller")
	out, err := exec.Command("go", "build", "-o", path, "github.com/napkit/napkit/examples/controller").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./examples/controller: %w\n%s", err, out)
	}
	return path, nil
})

// startProcess starts the controller binary against the stack's cluster and simulated Azure, its
// output appended to the stack's log, and waits until it serves /metrics.
func (s *stack) startProcess() *running { return s.startProcessFrom("") }

// startProcessFrom is startProcess with the binary at bin ("": the suite's build of this tree).
func (s *stack) startProcessFrom(bin string) *running {
	t := s.t
	t.Helper()
	if bin == "" {
		var err error
		bin, err = controllerBinary()
		require.NoError(t, err)
	}
	metricsAddr, pprofAddr := freeAddr(t), freeAddr(t)
	cfg := controller.Config{BatchIdle: 500 * time.Millisecond, BatchMax: 3 * time.Second,
		DisruptionInterval: 2 * time.Second, ValidationDelay: 2 * time.Second, GCInterval: 2 * time.Second}
	cfg.Consolidation.MinReplaceSavings = controller.DefaultMinReplaceSavings
	if s.opts.tune != nil {
		s.opts.tune(&cfg)
	}
	args := append([]string{"--kubeconfig", s.c.kubeconfig, "--simulate", "--sim-azure-endpoint", s.azure.srv.URL,
		"--metrics-addr", metricsAddr, "--health-addr", "", "--pprof-addr", pprofAddr, "--log-level", "info",
		"--kube-api-qps", "200", "--kube-api-burst", "400"}, processArgs(cfg)...)
	// NAPKIT_SCALE_CONTROLLER_ARGS adds flags of the binary that no Config field carries (e.g.
	// --memory-limit, which the chart passes): the environment itself cannot carry GOMEMLIMIT to
	// the controller alone, since the test process would inherit it too.
	args = append(args, strings.Fields(os.Getenv("NAPKIT_SCALE_CONTROLLER_ARGS"))...)
	log, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+s.azure.certFile)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	r := &running{done: make(chan struct{})}
	r.stop = func() { _ = cmd.Process.Signal(syscall.SIGTERM) }
	r.dump = func() string { return s.processGoroutines(cmd, r) }
	go func() { r.err = cmd.Wait(); _ = log.Close(); close(r.done) }()
	s.metrics = metricsFrom("http://" + metricsAddr + "/metrics")
	s.proc = &controllerProcess{pid: cmd.Process.Pid, pprof: "http://" + pprofAddr}
	waitServing(t, r, "http://"+metricsAddr+"/metrics", s.logPath)
	return r
}

// processArgs are the flags for the Config fields the scale suite tunes; the others stay at the
// binary's defaults (GCGracePeriod 30 s, the upkeep loops on).
func processArgs(cfg controller.Config) []string {
	return []string{"--batch-idle-duration", cfg.BatchIdle.String(), "--batch-max-duration", cfg.BatchMax.String(),
		"--disruption-interval", cfg.DisruptionInterval.String(), "--disruption-validation-delay", cfg.ValidationDelay.String(),
		"--gc-interval", cfg.GCInterval.String(), "--plan-for-kube-scheduler=" + fmt.Sprint(cfg.PlanForScheduler),
		"--nominate-pods=" + string(cfg.NominatePods), "--nominate-max-unbound=" + fmt.Sprint(cfg.NominateMaxUnbound),
		"--nominate-max-pending=" + fmt.Sprint(cfg.NominateMaxPending),
		"--disruption-chain-steps=" + fmt.Sprint(cfg.DisruptionChainSteps), "--mark-unneeded-nodes=" + fmt.Sprint(cfg.MarkUnneeded),
		"--consolidation-min-replace-savings", fmt.Sprint(cfg.Consolidation.MinReplaceSavings),
		"--consolidation-allow-many-to-many=" + fmt.Sprint(cfg.Consolidation.AllowManyToMany),
		"--max-concurrent-launches=" + fmt.Sprint(cfg.MaxConcurrentLaunches)}
}

// controllerProcess is a running controller binary: its pid (for /proc) and pprof base URL.
type controllerProcess struct {
	pid   int
	pprof string
}

// processGoroutines asks the process for its goroutines' stacks (SIGQUIT: the Go runtime prints
// them and exits) and returns those that run the controller's code, from its log.
func (s *stack) processGoroutines(cmd *exec.Cmd, r *running) string {
	_ = cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		return "(no stacks: the process did not exit on SIGQUIT within 10 s)"
	}
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	text := string(b)
	if i := strings.LastIndex(text, "SIGQUIT: quit"); i >= 0 {
		text = text[i:]
	}
	var keep []string
	for _, g := range strings.Split(text, "\n\n") {
		if strings.Contains(g, "/examples/controller/internal/controller.") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t require.TestingT) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// waitServing waits until url answers 200, failing with the log's tail if the process exits or a
// minute passes (a cold start lists every object of the cluster first).
func waitServing(t require.TestingT, r *running, url, logPath string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-r.done:
			require.FailNow(t, "controller process exited at start", "%v\n%s", r.err, tailFile(logPath, 40))
		case <-ctx.Done():
			require.FailNow(t, "controller process not serving /metrics within a minute", tailFile(logPath, 40))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// metricsFrom gathers a controller process's metrics from its /metrics.
func metricsFrom(url string) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		resp, err := http.Get(url)
		if err != nil {
			return nil, fmt.Errorf("scraping %s: %w", url, err)
		}
		defer resp.Body.Close()
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", url, err)
		}
		out := make([]*dto.MetricFamily, 0, len(families))
		for _, f := range families {
			out = append(out, f)
		}
		return out, nil
	})
}
