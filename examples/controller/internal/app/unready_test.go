package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In a pod, a configuration error keeps the process up without acting: /healthz answers 200,
// /readyz 500 naming the flag and value (never the token), and the log says the same; when the
// pod is stopped Run returns the error.
func TestConfigErrorInPodHoldsReadyzFailing(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		token string
		want  []string
	}{
		{name: "no subnet", extra: []string{"--subnet-id", ""}, token: testToken, want: []string{"--subnet-id: is required"}},
		{name: "unreadable CA", extra: []string{"--ca-file", "/nonexistent/ca.crt"}, token: testToken,
			want: []string{`--ca-file \"/nonexistent/ca.crt\": cannot be read`}},
		{name: "token missing", want: []string{"--bootstrap-token-file: the bootstrap token is missing"}},
		{name: "bad token", token: "not-a-token-s3cret", want: []string{"$NAPKIT_BOOTSTRAP_TOKEN: must be a bootstrap token"}},
		{name: "bad log format", extra: []string{"--log-format", "xml"}, token: testToken, want: []string{`--log-format \"xml\": must be text or json`}},
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvBootstrapToken, tt.token)
			dir := t.TempDir()
			addr := freeAddr(t)
			kubeconfig := filepath.Join(dir, "kubeconfig")
			writeKubeconfig(t, kubeconfig)
			f := realFlags(t, dir, append([]string{"--kubeconfig", kubeconfig, "--health-addr", addr, "--prices", "embedded"}, tt.extra...)...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stderr syncBuffer
			done := make(chan error, 1)
			go func() { done <- Run(ctx, f, io.Discard, &stderr) }()

			code, body := waitGet(t, "http://"+addr+"/readyz", done)
			assert.Equal(t, http.StatusInternalServerError, code)
			for _, want := range tt.want {
				assert.Contains(t, body, unquote(want))
				assert.Contains(t, stderr.String(), want, "the log names it too")
			}
			assert.NotContains(t, body+stderr.String(), "s3cret", "the token never shows")
			code, _ = waitGet(t, "http://"+addr+"/healthz", done)
			assert.Equal(t, http.StatusOK, code)

			cancel()
			select {
			case err := <-done:
				require.Error(t, err)
				assert.True(t, IsConfigError(err), "%v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after its context ended")
			}
		})
	}
}

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// waitGet GETs url until the server answers (at most 10 s), failing if Run returned first.
func waitGet(t *testing.T, url string, done <-chan error) (int, string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			return resp.StatusCode, string(body)
		}
		select {
		case runErr := <-done:
			t.Fatalf("Run returned before serving %s: %v", url, runErr)
		case <-time.After(20 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "no answer from %s: %v", url, err)
	}
}

// unquote turns the log's escaped quotes (text handler) back into the body's plain ones.
func unquote(s string) string { return string(bytes.ReplaceAll([]byte(s), []byte(`\"`), []byte(`"`))) }

// syncBuffer is a bytes.Buffer the logger may write while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A command line the flag package refuses is a configuration error too: in a pod Main holds
// /readyz failing with the flag package's message (flag and value) until stopped, then exits 2;
// outside a pod it exits 2 at once.
func TestBadCommandLine(t *testing.T) {
	args := func(addr string) []string { return []string{"--health-addr", addr, "--gc-interval", "soon"} }
	t.Run("outside a pod", func(t *testing.T) {
		t.Setenv("KUBERNETES_SERVICE_HOST", "")
		var stderr bytes.Buffer
		assert.Equal(t, 2, Main(context.Background(), args(freeAddr(t)), io.Discard, &stderr))
		assert.Contains(t, stderr.String(), `invalid value "soon" for flag -gc-interval`)
	})
	t.Run("in a pod", func(t *testing.T) {
		t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stderr syncBuffer
		done := make(chan error, 1)
		code := make(chan int, 1)
		go func() { code <- Main(ctx, args(addr), io.Discard, &stderr); done <- nil }()
		status, body := waitGet(t, "http://"+addr+"/readyz", done)
		assert.Equal(t, http.StatusInternalServerError, status)
		assert.Contains(t, body, `command line: invalid value "soon" for flag -gc-interval`)
		status, _ = waitGet(t, "http://"+addr+"/healthz", done)
		assert.Equal(t, http.StatusOK, status)
		cancel()
		select {
		case c := <-code:
			assert.Equal(t, 2, c)
		case <-time.After(10 * time.Second):
			t.Fatal("Main did not return after its context ended")
		}
	})
}
