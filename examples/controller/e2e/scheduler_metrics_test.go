//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

// waitSchedulerQueuesIdle waits until kube-scheduler holds no pod in its active or backoff queue
// (scheduler_pending_pods): every pending pod has had its attempt and waits, unschedulable, for a
// cluster event. A pod still in backoff is retried on its own, and a retry that fails clears a
// nomination written meanwhile (TestSchedulerNomination), so the nomination tests write theirs
// only once the queues are idle; the controller re-nominates instead (Config.NominatePods).
func waitSchedulerQueuesIdle(t *testing.T, c *cluster) {
	t.Helper()
	waitUntil(t, time.Minute, "kube-scheduler's active and backoff queues empty", func(context.Context) error {
		sc := bufio.NewScanner(strings.NewReader(schedulerGet(t, c, "/metrics")))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			name, labels, value, ok := metricLine(sc.Text())
			if ok && name == "scheduler_pending_pods" && (labels["queue"] == "active" || labels["queue"] == "backoff") && value > 0 {
				return fmt.Errorf("%v pods in its %s queue", value, labels["queue"])
			}
		}
		return sc.Err()
	})
}

// schedulerGet GETs a path of kube-scheduler's secure port (from the state dir's port file), which
// serves a certificate of the instance's CA, the same the admin kubeconfig trusts.
func schedulerGet(t *testing.T, c *cluster, path string) string {
	t.Helper()
	port, err := os.ReadFile(filepath.Join(c.stateDir, "kube-scheduler.port"))
	require.NoError(t, err, "kube-scheduler's port file")
	tlsCfg, err := rest.TLSConfigFor(c.rest)
	require.NoError(t, err)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg}, Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	url := fmt.Sprintf("https://127.0.0.1:%s%s", strings.TrimSpace(string(port)), path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err, "GET %s", url)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET %s: %s", url, data)
	return string(data)
}

// metricLine splits one sample line of the Prometheus text format, `name{k="v",...} value`;
// comments and lines it cannot read give ok false. Label values here hold no commas or quotes.
func metricLine(line string) (name string, labels map[string]string, value float64, ok bool) {
	if line == "" || line[0] == '#' {
		return "", nil, 0, false
	}
	sp := strings.LastIndexByte(line, ' ')
	if sp < 0 {
		return "", nil, 0, false
	}
	value, err := strconv.ParseFloat(line[sp+1:], 64)
	if err != nil {
		return "", nil, 0, false
	}
	name, rest, _ := strings.Cut(line[:sp], "{")
	labels = map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
		if k, v, found := strings.Cut(kv, "="); found {
			labels[k] = strings.Trim(v, `"`)
		}
	}
	return name, labels, value, true
}
