package azuresim

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Record is one request the simulator received.
type Record struct {
	// At is when the request arrived (wall clock).
	At     time.Time
	Method string
	Path   string
	Query  url.Values
	// Body is the request body as sent, secrets included: it is test
	// evidence, kept only in memory.
	Body []byte
	Op   Op
	// Name is the resource the call names ("" for lists); for a batched
	// Machine PUT, the machine its URL names.
	Name string
	// Batch lists the machines a Machine PUT's BatchPutMachine header names,
	// in header order (nil for a plain PUT).
	Batch []string
	// Status is the HTTP status, or 0 when the call failed at the transport.
	Status int
	// Err is the transport error, if any.
	Err error
}

// IsWrite reports whether the call changes state (PUT, PATCH, POST, DELETE).
func (r Record) IsWrite() bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead
}

func (s *Sim) record(req *http.Request, c call, start time.Time, rep reply, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, Record{
		At: start, Method: req.Method, Path: req.URL.Path, Query: c.query, Body: c.body,
		Op: c.op, Name: c.name, Batch: c.batchNames(), Status: rep.status, Err: err,
	})
}

// Requests returns every request so far, in arrival order.
func (s *Sim) Requests() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.records)
	slices.SortStableFunc(out, func(a, b Record) int { return a.At.Compare(b.At) })
	return out
}

// RequestsFor returns the requests of op naming resource name, in arrival order.
func (s *Sim) RequestsFor(op Op, name string) []Record {
	var out []Record
	for _, r := range s.Requests() {
		if r.Op == op && strings.EqualFold(r.Name, name) {
			out = append(out, r)
		}
	}
	return out
}

// Writes counts write calls per node: a VM, its NIC and its extensions share
// the VM's name; a deleteMachines call counts once for each machine it names;
// a batched Machine PUT is one write, counted for the machine its URL names
// (WriteCalls counts calls).
func (s *Sim) Writes() map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		if !r.IsWrite() || r.Name == "" {
			continue
		}
		for _, name := range strings.Split(r.Name, ",") {
			out[nodeOf(name)]++
		}
	}
	return out
}

// WriteCalls counts write calls: one per PUT, POST or DELETE, however many
// resources it names.
func (s *Sim) WriteCalls() int {
	n := 0
	for _, r := range s.Requests() {
		if r.IsWrite() {
			n++
		}
	}
	return n
}

// nodeOf is the node a resource name belongs to: a VM extension
// ("<vm>/extensions/<name>") belongs to its VM.
func nodeOf(name string) string {
	node, _, _ := strings.Cut(name, "/")
	return node
}

// ResetRecords forgets the recorded requests.
func (s *Sim) ResetRecords() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = nil
}
