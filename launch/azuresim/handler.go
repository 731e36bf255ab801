package azuresim

import (
	"io"
	"net/http"
)

// Handler serves the simulator over HTTP(S), for a controller in another process whose real ARM
// clients point their Resource Manager endpoint at the server (a scale test that measures the
// controller's own memory cannot host the simulated Azure inside it). Each request is served by
// Do, as the in-process transport serves it; the long-running operations' polling URLs name the
// server, since the simulator builds them from the request's scheme and host. A transport error
// (a simulated crash, a hang cut short) aborts the connection, which the client sees as one.
func (s *Sim) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := r.Clone(r.Context())
		req.RequestURI = ""
		req.URL.Scheme, req.URL.Host = "http", r.Host
		if r.TLS != nil {
			req.URL.Scheme = "https"
		}
		resp, err := s.Do(req)
		if err != nil {
			panic(http.ErrAbortHandler) // net/http closes the connection without logging a stack
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
}
