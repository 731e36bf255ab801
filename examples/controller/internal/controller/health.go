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
	c.routeMetrics(mux)
	c.routeHealth(mux)
	return mux
}

func (c *Controller) routeMetrics(mux *http.ServeMux) {
	mux.Handle("/metrics", promhttp.HandlerFor(c.cfg.Metrics, promhttp.HandlerOpts{}))
}

func (c *Controller) routeHealth(mux *http.ServeMux) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !c.ready.Load() {
			http.Error(w, "caches not synced", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
}

// serveHTTP listens on MetricsAddr and HealthAddr (each when set; one listener when they are the
// same) until the returned stop is called.
func (c *Controller) serveHTTP(ctx context.Context) (stop func(), err error) {
	servers := map[string]*http.ServeMux{}
	for _, r := range []struct {
		addr  string
		route func(*http.ServeMux)
	}{{c.cfg.MetricsAddr, c.routeMetrics}, {c.cfg.HealthAddr, c.routeHealth}} {
		if r.addr == "" {
			continue
		}
		if servers[r.addr] == nil {
			servers[r.addr] = http.NewServeMux()
		}
		r.route(servers[r.addr])
	}
	var stops []func()
	stopAll := func() {
		for _, s := range stops {
			s()
		}
	}
	for addr, mux := range servers {
		s, err := c.listen(ctx, addr, mux)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, s)
	}
	return stopAll, nil
}

// listen serves h on addr in the background until the returned stop is called.
func (c *Controller) listen(ctx context.Context, addr string, h http.Handler) (stop func(), err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			c.log.Error("HTTP server stopped", "addr", addr, "error", err)
		}
	}()
	c.log.Info("serving HTTP", "addr", ln.Addr().String())
	return func() {
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}, nil
}
