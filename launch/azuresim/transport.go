package azuresim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// ErrConnectionLost is the transport error a crashed controller's calls
// get. It is not retriable, so azcore gives up at once, as a dead process would.
var ErrConnectionLost = connectionLost{}

type connectionLost struct{}

func (connectionLost) Error() string { return "azuresim: connection lost (controller crashed)" }

// NonRetriable tells azcore's retry policy not to retry.
func (connectionLost) NonRetriable() {}

var _ policy.Transporter = (*Sim)(nil)

// ClientOptions are arm.ClientOptions whose transport is the simulator.
// Set Retry on the result to tune retries.
func (s *Sim) ClientOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: policy.ClientOptions{Transport: s}}
}

// UnmeteredHeader marks a request as the simulation's own (a simulated
// kubelet listing the VMs it boots): Options.RateLimits neither throttle nor
// count it, since on Azure that observer would not call ARM at all.
const UnmeteredHeader = "X-Azuresim-Unmetered"

// UnmeteredClientOptions are ClientOptions whose requests carry
// UnmeteredHeader, for the simulation's own observers.
func (s *Sim) UnmeteredClientOptions() *arm.ClientOptions {
	o := s.ClientOptions()
	o.PerCallPolicies = append(o.PerCallPolicies, unmetered{})
	return o
}

// unmetered is the azcore policy that sets UnmeteredHeader.
type unmetered struct{}

func (unmetered) Do(req *policy.Request) (*http.Response, error) {
	req.Raw().Header.Set(UnmeteredHeader, "true")
	return req.Next()
}

// Credential is the credential the simulator accepts.
func (s *Sim) Credential() Credential { return Credential{} }

// Do serves one HTTP request in memory: it waits the call's latency, applies
// crashes and injected faults, then the operation.
func (s *Sim) Do(req *http.Request) (*http.Response, error) {
	start := time.Now()
	c, parsed := s.parse(req)
	rep, err := s.serve(req.Context(), req, c, parsed)
	s.record(req, c, start, rep, err)
	if err != nil {
		return nil, err
	}
	return rep.response(req), nil
}

// serve returns the reply to c, or a transport error.
func (s *Sim) serve(ctx context.Context, req *http.Request, c call, parsed *reply) (reply, error) {
	if err := wait(ctx, s.latency(c.op)); err != nil {
		return reply{}, err
	}
	if parsed != nil {
		return *parsed, nil
	}
	if c.op != OpRetailPrices && req.Header.Get("Authorization") != "Bearer "+Token {
		return errorReply(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed."), nil
	}
	// ARM throttles per principal, so only an authenticated call meets the buckets.
	adm := s.admit(req, c.op)
	if rep, refused := adm.refusal(); refused {
		return rep, nil
	}
	if s.isSevered(nodeOf(c.name)) {
		return reply{}, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrConnectionLost)
	}
	// A batched Machine PUT meets transport faults as a whole; the machine
	// faults are matched per machine it names (see putMachineBatch).
	f, faulted := s.takeFault(c, func(f *Fault) bool { return c.batch == nil || f.Kind.transport() })
	if faulted {
		if rep, err, done := s.transportFault(ctx, f); done {
			return rep, err
		}
		if f.Kind == FaultCrashAfterVM {
			s.sever(nodeOf(c.name))
			return reply{}, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrConnectionLost)
		}
	}
	return adm.stamp(s.dispatch(c, f, faulted)), nil
}

// transportFault applies faults that answer before the operation runs.
func (s *Sim) transportFault(ctx context.Context, f Fault) (reply, error, bool) {
	switch f.Kind {
	case FaultThrottle:
		return throttled(f.RetryAfter), nil, true
	case FaultServerError:
		return errorReply(http.StatusInternalServerError, "InternalServerError", "An internal execution error occurred. Please retry later."), nil, true
	case FaultHang:
		<-ctx.Done()
		return reply{}, ctx.Err(), true
	}
	return reply{}, nil, false
}

// dispatch runs the operation under the state lock.
func (s *Sim) dispatch(c call, f Fault, faulted bool) reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch c.op {
	case OpVMPut:
		return s.putVM(c, f, faulted)
	case OpVMGet:
		return s.getVM(c)
	case OpVMDelete:
		return s.deleteVM(c)
	case OpVMList:
		return s.listVMs(c)
	case OpNICPut:
		return s.putNIC(c, faulted && f.Kind == FaultCrashAfterNIC)
	case OpNICGet:
		return s.getNIC(c)
	case OpNICDelete:
		return s.deleteNIC(c)
	case OpNICList:
		return s.listNICs(c)
	case OpOperation:
		return s.pollOperation(c)
	}
	return s.dispatchMore(c, f, faulted)
}

// dispatchMore serves extensions, network lookups and AKS Machines.
func (s *Sim) dispatchMore(c call, f Fault, faulted bool) reply {
	switch c.op {
	case OpExtensionPut:
		return s.putExtension(c)
	case OpExtensionGet:
		return s.getExtension(c)
	case OpLBGet, OpNSGGet:
		return s.getNetworkResource(c)
	case OpLBList, OpNSGList:
		return s.listNetworkResources(c)
	case OpMachinePut:
		return s.putMachine(c, f, faulted)
	case OpMachineGet:
		return s.getMachine(c)
	case OpMachineList:
		return s.listMachines(c)
	case OpVMPatch:
		return s.patchVM(c)
	case OpNICPatch:
		return s.patchNIC(c)
	case OpImageVersionList:
		return s.listImageVersions(c)
	case OpUsageList:
		return s.listUsages(c)
	case OpRetailPrices:
		return s.retailPrices(c)
	case OpDiskEncryptionSetGet:
		return s.getDiskEncryptionSet(c)
	case OpSubnetGet:
		return s.getSubnet(c)
	default:
		return s.deleteMachines(c)
	}
}

func (s *Sim) latency(op Op) time.Duration {
	if d, ok := s.opts.OpLatency[op]; ok {
		return d
	}
	return s.opts.Latency
}

func (s *Sim) isSevered(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return name != "" && s.severed[key("", name)]
}

// wait sleeps d unless ctx ends first.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// response turns the reply into the *http.Response azcore reads.
func (r reply) response(req *http.Request) *http.Response {
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", r.status, http.StatusText(r.status)),
		StatusCode:    r.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        r.header,
		Body:          io.NopCloser(bytes.NewReader(r.body)),
		ContentLength: int64(len(r.body)),
		Request:       req,
	}
}

// IsConnectionLost reports whether err came from a simulated crash.
func IsConnectionLost(err error) bool { return errors.Is(err, ErrConnectionLost) }
