package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves net/http/pprof's handlers on addr until the returned stop is called. It is
// opt-in (--pprof-addr) and on a port of its own, never on the metrics port a chart exposes: a
// heap profile is how the scale suite finds what holds the controller's memory at 2,000 nodes.
func servePprof(ctx context.Context, addr string, log *slog.Logger) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConfigError{Flag: "--pprof-addr", Value: addr, Reason: "cannot listen", Err: err}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("pprof server stopped", "addr", addr, "error", err)
		}
	}()
	log.Info("serving pprof", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
