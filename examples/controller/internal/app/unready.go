package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// inPod reports whether the process runs in a Kubernetes pod (the kubelet sets the variable).
func inPod(getenv func(string) string) bool { return getenv("KUBERNETES_SERVICE_HOST") != "" }

// holdUnready is what a pod does with a configuration error: it logs the error (naming the flag and
// value, never a secret) and stays up without acting, /healthz answering 200 and /readyz 500 with
// the error, until ctx ends (SIGTERM); then it returns the error. Restarting would not fix a
// setting, and a crash loop would hide the message behind back-off, while an unready pod shows it
// in `kubectl get pods`, its probe events and its log, and blocks a rollout of the bad settings.
func holdUnready(ctx context.Context, addr string, cfgErr error, log *slog.Logger) error {
	log.Error("configuration error: the controller does not start; /readyz fails until the settings are fixed", "error", cfgErr)
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "configuration error: "+cfgErr.Error(), http.StatusInternalServerError)
	})
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return errors.Join(cfgErr, fmt.Errorf("serving /readyz on %s: %w", addr, err))
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errors.Join(cfgErr, fmt.Errorf("serving /readyz on %s: %w", addr, err))
	}
	return cfgErr
}
