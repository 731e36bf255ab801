package controller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /metrics (the karpenter_* metrics), /healthz (the process answers) and /readyz
// (the caches are synced, so decisions see the cluster).
func (c *Controller) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(c.cfg.Metrics, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !c.ready.Load() {
			http.Error(w, "caches not synced", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}

// serveHTTP listens on HTTPAddr (when set) until the returned stop is called.
func (c *Controller) serveHTTP(ctx context.Context) (stop func(), err error) {
	if c.cfg.HTTPAddr == "" {
		return func() {}, nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", c.cfg.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", c.cfg.HTTPAddr, err)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error("HTTP server stopped", "error", err)
		}
	}()
	c.log.Info("serving metrics and health", "addr", ln.Addr().String())
	return func() {
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}, nil
}
