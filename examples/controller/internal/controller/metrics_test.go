package controller

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// TestMetricsExposed: every metric is registered under Karpenter's name with Karpenter's labels,
// and napkit's own under napkit_.
func TestMetricsExposed(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	m := e.c.metrics
	m.claimsCreated.WithLabelValues("provisioning", "default").Inc()
	m.claimsTerminated.WithLabelValues("default").Inc()
	m.nodesCreated.WithLabelValues("default").Inc()
	m.nodesTerminated.WithLabelValues("default").Add(2)
	m.schedulingDuration.Observe(0.01)
	m.disruptionDecisions.WithLabelValues("delete", "Empty", "").Inc()
	m.plannedReleased.WithLabelValues(releaseNoRoom).Inc()
	node := newNode("aks-default-1", providerID1)
	node.Labels[api.LabelNodePool] = "default"
	require.NoError(t, e.c.inf.nodes.GetIndexer().Add(node))
	e.addPod(t, newPod("web", boundTo(node.Name)), newPod("waiting", withPhase(corev1.PodPending)))

	families, err := e.c.cfg.Metrics.Gather()
	require.NoError(t, err)
	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
	}
	tests := []struct {
		name   string
		typ    dto.MetricType
		labels []string
	}{
		{"karpenter_nodeclaims_created_total", dto.MetricType_COUNTER, []string{"nodepool", "reason"}},
		{"karpenter_nodeclaims_terminated_total", dto.MetricType_COUNTER, []string{"nodepool"}},
		{"karpenter_nodes_created_total", dto.MetricType_COUNTER, []string{"nodepool"}},
		{"karpenter_nodes_terminated_total", dto.MetricType_COUNTER, []string{"nodepool"}},
		{"karpenter_provisioner_scheduling_duration_seconds", dto.MetricType_HISTOGRAM, nil},
		{"karpenter_voluntary_disruption_decisions_total", dto.MetricType_COUNTER,
			[]string{"consolidation_type", "decision", "reason"}},
		{"karpenter_pods_state", dto.MetricType_GAUGE, []string{"name", "namespace", "node", "nodepool", "phase"}},
		{"napkit_planned_pods_released_total", dto.MetricType_COUNTER, []string{"reason"}}, // napkit's own
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := byName[tt.name]
			require.NotNil(t, f, "%s is not exposed", tt.name)
			assert.Equal(t, tt.typ, f.GetType())
			assert.NotEmpty(t, f.GetHelp())
			for _, metric := range f.GetMetric() {
				var names []string
				for _, l := range metric.GetLabel() {
					names = append(names, l.GetName())
				}
				slices.Sort(names)
				assert.Equal(t, tt.labels, names)
			}
		})
	}
	assert.Len(t, families, len(tests), "no unexpected metric families")
	assert.Equal(t, 2.0, byName["karpenter_nodes_terminated_total"].GetMetric()[0].GetCounter().GetValue())
	assert.Equal(t, uint64(1), byName["karpenter_provisioner_scheduling_duration_seconds"].GetMetric()[0].GetHistogram().GetSampleCount())

	// karpenter_pods_state: one series per cached pod, with its node's pool.
	var pods []map[string]string
	for _, metric := range byName["karpenter_pods_state"].GetMetric() {
		assert.Equal(t, 1.0, metric.GetGauge().GetValue())
		pods = append(pods, labelsOf(metric))
	}
	assert.ElementsMatch(t, []map[string]string{
		{"name": "web", "namespace": "default", "node": node.Name, "nodepool": "default", "phase": "Running"},
		{"name": "waiting", "namespace": "default", "node": "", "nodepool": "", "phase": "Pending"},
	}, pods)
}

// TestPodsStateFollowsCache: a pod gone from the cache has no series any more.
func TestPodsStateFollowsCache(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	pod := newPod("web")
	e.addPod(t, pod)
	count := func() int {
		families, err := e.c.cfg.Metrics.Gather()
		require.NoError(t, err)
		for _, f := range families {
			if f.GetName() == "karpenter_pods_state" {
				return len(f.GetMetric())
			}
		}
		return 0
	}
	assert.Equal(t, 1, count())
	require.NoError(t, e.c.inf.pods.GetIndexer().Delete(pod))
	assert.Equal(t, 0, count())
}

// TestNewMetricsRegistry: metrics go to the registry given; a registry that already has them
// (a second controller on the same registry) is an error, not a panic.
func TestNewMetricsRegistry(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	reg := prometheus.NewRegistry()
	_, err := newMetrics(reg, e.c.inf)
	require.NoError(t, err)
	_, err = newMetrics(reg, e.c.inf)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "register metrics")
	are := prometheus.AlreadyRegisteredError{}
	assert.ErrorAs(t, err, &are)
}

// TestHandler: /metrics serves the registry in the text format; /readyz waits for the caches.
func TestHandler(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.c.metrics.nodesCreated.WithLabelValues("default").Inc()
	srv := httptest.NewServer(e.c.Handler())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	code, body := get("/metrics")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `karpenter_nodes_created_total{nodepool="default"} 1`)
	code, _ = get("/healthz")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	e.c.ready.Store(true)
	code, _ = get("/readyz")
	assert.Equal(t, http.StatusOK, code)
}
