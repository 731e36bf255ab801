package controller

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
)

// ClientMetrics are client-go's request metrics under client-go's names (rest_client_requests_total,
// rest_client_request_duration_seconds), counted for one rest.Config rather than for the whole
// process: client-go's own hooks (k8s.io/client-go/tools/metrics) are process-wide, and a
// simulation runs the controller beside other clients (the simulated kubelets, a test) whose
// requests must not be charged to it.
type ClientMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewClientMetrics registers the metrics on reg.
func NewClientMetrics(reg prometheus.Registerer) (*ClientMetrics, error) {
	m := &ClientMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rest_client_requests_total",
			Help: "Requests to the API server, by status code and method."}, []string{"code", "method"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rest_client_request_duration_seconds",
			Help: "Request latency to the API server, by method.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)},
			[]string{"method"}),
	}
	if err := errors.Join(reg.Register(m.requests), reg.Register(m.duration)); err != nil {
		return nil, fmt.Errorf("register client metrics: %w", err)
	}
	return m, nil
}

// Instrument makes every client built from cfg count its requests here.
func (m *ClientMetrics) Instrument(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return promhttp.InstrumentRoundTripperCounter(m.requests, promhttp.InstrumentRoundTripperDuration(m.duration, rt))
	})
}
