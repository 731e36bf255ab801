//go:build e2e && scale

package e2e

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// schedulerReading is one reading of kube-scheduler's own metrics: enough to tell whether its
// client's rate limit (clientConnection qps/burst) or its CPU bounds the binding rate.
type schedulerReading struct {
	// limiterWait is rest_client_rate_limiter_duration_seconds_sum over all verbs: the time its
	// requests waited for the client's token bucket.
	limiterWait float64
	// requests is rest_client_requests_total by method (POST: bindings and events; PATCH: pod
	// status updates of failed attempts).
	requests map[string]float64
	// attempts is scheduler_schedule_attempts_total by result (scheduled, unschedulable, error).
	attempts map[string]float64
	// incoming is scheduler_queue_incoming_pods_total by event: what moved pods into its
	// active, backoff or unschedulable queue (PodAdd, ScheduleAttemptFailure, NodeAdd, a node
	// or pod update by kind, ...), so the attempts per pod can be told apart by cause.
	incoming map[string]float64
	// cpu is process_cpu_seconds_total.
	cpu float64
}

// schedulerFigures are the differences between two readings, for the report.
type schedulerFigures struct {
	SchedulerQPS                float64
	SchedulerBurst              int
	SchedulerLimiterWaitSeconds float64
	SchedulerCPUSeconds         float64
	SchedulerRequests           map[string]int
	SchedulerAttempts           map[string]int
	SchedulerAttemptsPerPod     float64
	SchedulerCores              float64
	// SchedulerQueueIncoming is scheduler_queue_incoming_pods_total by event, summed over queues.
	SchedulerQueueIncoming map[string]int
}

// readScheduler scrapes kube-scheduler's /metrics on its secure port with the admin's client
// certificate (kube-scheduler asks kube-apiserver to authorize it).
func readScheduler(t *testing.T, c *cluster) schedulerReading {
	t.Helper()
	body := schedulerGet(t, c, "/metrics")
	r := schedulerReading{requests: map[string]float64{}, attempts: map[string]float64{}, incoming: map[string]float64{}}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, labels, value, ok := metricLine(sc.Text())
		switch {
		case !ok:
		case name == "rest_client_rate_limiter_duration_seconds_sum":
			r.limiterWait += value
		case name == "rest_client_requests_total":
			r.requests[labels["method"]] += value
		case name == "scheduler_schedule_attempts_total":
			r.attempts[labels["result"]] += value
		case name == "scheduler_queue_incoming_pods_total":
			r.incoming[labels["event"]] += value
		case name == "process_cpu_seconds_total":
			r.cpu = value
		}
	}
	require.NoError(t, sc.Err())
	return r
}

// since is what happened between an earlier reading and this one; pods and span (the scale-up's
// length) give the per-pod and per-second figures.
func (r schedulerReading) since(before schedulerReading, pods int, span time.Duration) schedulerFigures {
	f := schedulerFigures{
		SchedulerLimiterWaitSeconds: r.limiterWait - before.limiterWait,
		SchedulerCPUSeconds:         r.cpu - before.cpu,
		SchedulerRequests:           map[string]int{},
		SchedulerAttempts:           map[string]int{},
		SchedulerQueueIncoming:      map[string]int{},
	}
	for k, v := range r.incoming {
		if n := int(v - before.incoming[k]); n > 0 {
			f.SchedulerQueueIncoming[k] = n
		}
	}
	for k, v := range r.requests {
		f.SchedulerRequests[k] = int(v - before.requests[k])
	}
	total := 0
	for k, v := range r.attempts {
		f.SchedulerAttempts[k] = int(v - before.attempts[k])
		total += f.SchedulerAttempts[k]
	}
	if pods > 0 {
		f.SchedulerAttemptsPerPod = float64(total) / float64(pods)
	}
	if span > 0 {
		f.SchedulerCores = f.SchedulerCPUSeconds / span.Seconds()
	}
	return f
}

// schedulerClientLimit reads the client rate limit kube-scheduler runs with from its /configz
// (scripts/scale.sh may raise it; the shared script leaves the defaults, 50/100).
func schedulerClientLimit(t *testing.T, c *cluster) (qps float64, burst int) {
	t.Helper()
	var cfg struct {
		ComponentConfig struct {
			ClientConnection struct {
				QPS   float64 `json:"qps"`
				Burst int     `json:"burst"`
			} `json:"clientConnection"`
		} `json:"componentconfig"`
	}
	body := schedulerGet(t, c, "/configz")
	require.NoError(t, json.Unmarshal([]byte(body), &cfg), "kube-scheduler /configz")
	return cfg.ComponentConfig.ClientConnection.QPS, cfg.ComponentConfig.ClientConnection.Burst
}
