package azure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"k8s.io/utils/clock"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// This file is mode aksmachineapiheaderbatch: concurrent Machine creates go
// out as one PUT per batch, as karpenter-provider-azure sends them
// (designs/0010-aks-machines-batch-creation.md and
// pkg/providers/azclient/aksmachinesheaderbatch in that repository):
//
//   - The PUT addresses the batch's first machine; its body is the shared
//     template, the Machine without zones and tags (AKS discards both from
//     the body of a batch PUT).
//   - The BatchPutMachine header lists every machine of the batch, the one
//     in the URL included, with the fields that may differ between them:
//     {"batchMachines":[{"machineName":"m1","zones":["1"],"tags":{...}},...]}.
//     Machines whose bodies differ in anything else go in different batches.
//   - At most 50 machines a batch (AKSMachineAPIHeaderBatchMaxSize).
//   - A batch PUT does not update: a machine that already exists fails.
//   - Answers: 200 when every machine was accepted; 400
//     BatchMachineClientError when at least one machine failed a client
//     check, with one detail (code, message, target = machine name) per
//     failed machine at the top level of the (unwrapped) error body; 500
//     BatchMachineInternalServerError when none failed a client check but
//     some failed inside AKS, the details JSON-encoded in the message; any
//     other error (a shared property such as the size refused, throttling)
//     fails every machine of the batch. Machines no detail names were
//     accepted.
//   - The PUT's operation does not cover the batch's machines, so each one is
//     followed by GETs of the machine itself.
//
// napkit's own choices, not karpenter's: a batch is keyed and timed on its
// own (karpenter shares one timer across keys); a create whose context ends
// while it waits leaves its batch before the PUT is sent, or has its machine
// deleted once the PUT answers (karpenter keeps the machine); a batch PUT is
// not retried on HTTP 500, which carries the per-machine results of
// BatchMachineInternalServerError (karpenter leaves azcore's default retries).
// The header is JSON compacted on one line; the simulator and this file agree
// on it, and nothing else about its encoding (size limits, escaping of
// non-ASCII tag values) is documented.

// Error codes of a batch PUT that carry per-machine results.
const (
	batchMachineClientError         = "BatchMachineClientError"
	batchMachineInternalServerError = "BatchMachineInternalServerError"
)

// errLeftBatch marks a create that stopped waiting for its batch because
// its context ended; the batcher owns whatever the batch made for it.
var errLeftBatch = errors.New("left its AKS machine batch")

// errBatchAnswerUnreadable marks a batch PUT error whose per-machine results
// could not be read: any machine of the batch may exist.
var errBatchAnswerUnreadable = errors.New("unreadable AKS machine batch answer")

// machineBatchError is one machine's failure in a batch PUT's answer. It
// unwraps to the batch's *azcore.ResponseError.
type machineBatchError struct {
	Machine, Code, Message string
	// Status is the batch answer's HTTP status.
	Status int
	Batch  error
}

func (e *machineBatchError) Error() string {
	return fmt.Sprintf("AKS machine %s in batch PUT: %s: %s", e.Machine, e.Code, e.Message)
}

func (e *machineBatchError) Unwrap() error { return e.Batch }

// machineMayExist reports whether a machine may exist after its batch got
// result err: accepted, or failed in a way that does not rule creation out.
func machineMayExist(err error) bool {
	if err == nil || errors.Is(err, errBatchAnswerUnreadable) {
		return true
	}
	if _, ok := errors.AsType[*machineBatchError](err); ok {
		return false
	}
	return !armRejected(err)
}

// batchExec sends one batch and returns one result per member, in order.
type batchExec func(ctx context.Context, template *bootstrap.Machine, members []bootstrap.BatchMember) []error

// batchCleanup deletes machines whose creates left their batch after it was
// sent.
type batchCleanup func(ctx context.Context, names []string) error

// machineBatcher collects concurrent Machine creates into batches, one open
// batch per template. A batch is sent when idle passes without a new create,
// max after its first create, or once it holds size machines. It runs no
// goroutine of its own: timers send idle and expired batches, and a full one
// is sent by a goroutine that ends with its PUT (and any cleanup).
type machineBatcher struct {
	idle, max time.Duration
	size      int
	exec      batchExec
	cleanup   batchCleanup
	log       *slog.Logger
	// clock runs the idle and max timers (the real clock; tests step a fake one).
	clock clock.WithDelayedExecution

	mu   sync.Mutex
	open map[string]*machineBatch // by template key
}

// machineBatch is one batch. Its state only moves forward, under the
// batcher's lock: open, closed (no new members), sent (members fixed),
// delivered (every member has its result).
type machineBatch struct {
	key       string
	template  *bootstrap.Machine
	waiters   []*batchWaiter
	idle, max clock.Timer
	closed    bool
	sent      bool
	delivered bool
}

// batchWaiter is one create waiting for its batch.
type batchWaiter struct {
	member bootstrap.BatchMember
	result chan error // buffered: the batch never blocks on a create that left
	// abandoned is set when the create left after the batch was sent.
	abandoned bool
}

func newMachineBatcher(idle, maxWait time.Duration, size int, exec batchExec, cleanup batchCleanup, log *slog.Logger) *machineBatcher {
	return &machineBatcher{
		idle: idle, max: maxWait, size: size, exec: exec, cleanup: cleanup, log: log,
		clock: clock.RealClock{}, open: map[string]*machineBatch{},
	}
}

// create adds the machine name with body to a batch and waits for the
// batch's answer about it: nil when AKS accepted it, else the batch's or the
// machine's error. When ctx ends first, it returns an errLeftBatch error at
// once: the create left a batch not yet sent, or the batcher deletes the
// machine if the batch made it.
func (bt *machineBatcher) create(ctx context.Context, name string, body bootstrap.Machine) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", errLeftBatch, err)
	}
	b, w, err := bt.enqueue(name, body)
	if err != nil {
		return err
	}
	select {
	case err := <-w.result:
		return err
	case <-ctx.Done():
		if err, answered := bt.leave(b, w); answered {
			return err
		}
		return fmt.Errorf("%w: %w", errLeftBatch, ctx.Err())
	}
}

// enqueue adds a waiter for name to the open batch of body's template,
// opening one if there is none, and sends the batch if that fills it.
func (bt *machineBatcher) enqueue(name string, body bootstrap.Machine) (*machineBatch, *batchWaiter, error) {
	key, template, err := bootstrap.BatchTemplate(&body)
	if err != nil {
		return nil, nil, fmt.Errorf("AKS machine %s batch template: %w", name, err)
	}
	w := &batchWaiter{member: bootstrap.MemberOf(name, &body), result: make(chan error, 1)}
	bt.mu.Lock()
	b := bt.open[key]
	if b == nil {
		b = &machineBatch{key: key, template: template}
		b.idle = bt.clock.AfterFunc(bt.idle, func() { bt.fire(b) })
		b.max = bt.clock.AfterFunc(bt.max, func() { bt.fire(b) })
		bt.open[key] = b
	} else {
		b.idle.Reset(bt.idle)
	}
	b.waiters = append(b.waiters, w)
	full := len(b.waiters) >= bt.size
	if full {
		bt.closeLocked(b)
	}
	bt.mu.Unlock()
	if full {
		go bt.send(b)
	}
	return b, w, nil
}

// fire sends b when its idle or max timer goes off, unless it was already
// closed. It runs on the timer's goroutine.
func (bt *machineBatcher) fire(b *machineBatch) {
	bt.mu.Lock()
	if b.closed {
		bt.mu.Unlock()
		return
	}
	bt.closeLocked(b)
	bt.mu.Unlock()
	bt.send(b)
}

// closeLocked takes b out of the open batches and stops its timers.
func (bt *machineBatcher) closeLocked(b *machineBatch) {
	b.closed = true
	if bt.open[b.key] == b {
		delete(bt.open, b.key)
	}
	b.idle.Stop()
	b.max.Stop()
}

// leave handles a waiter whose context ended. Before the batch is sent the
// waiter is removed (an emptied open batch is closed, so it sends nothing);
// after, it is marked abandoned for the batch to clean up. If the batch has
// already answered, leave returns the waiter's result instead.
func (bt *machineBatcher) leave(b *machineBatch, w *batchWaiter) (error, bool) {
	bt.mu.Lock()
	defer bt.mu.Unlock()
	switch {
	case b.delivered:
		return <-w.result, true
	case b.sent:
		w.abandoned = true
	default:
		b.waiters = slices.DeleteFunc(b.waiters, func(x *batchWaiter) bool { return x == w })
		if len(b.waiters) == 0 && !b.closed {
			bt.closeLocked(b)
		}
	}
	return nil, false
}

// send runs a closed batch's PUT, hands each waiter its result and deletes
// what the batch made for waiters that left meanwhile. The PUT does not run
// on any waiter's context: it serves them all, and cancelling it half-way
// could leave machines nobody knows of.
func (bt *machineBatcher) send(b *machineBatch) {
	bt.mu.Lock()
	b.sent = true
	waiters := slices.Clone(b.waiters)
	bt.mu.Unlock()
	if len(waiters) == 0 {
		return
	}
	members := make([]bootstrap.BatchMember, len(waiters))
	for i, w := range waiters {
		members[i] = w.member
	}
	results := bt.run(b.template, members)
	bt.mu.Lock()
	var orphans []string
	for i, w := range waiters {
		w.result <- results[i]
		if w.abandoned && machineMayExist(results[i]) {
			orphans = append(orphans, w.member.Name)
		}
	}
	b.delivered = true
	bt.mu.Unlock()
	if len(orphans) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if err := bt.cleanup(ctx, orphans); err != nil {
		bt.log.Warn("deleting AKS machines of abandoned creates failed", "machines", orphans, "error", err)
	}
}

// run executes the batch; a panic in exec fails every member instead of
// leaving them waiting.
func (bt *machineBatcher) run(template *bootstrap.Machine, members []bootstrap.BatchMember) (results []error) {
	defer func() {
		if r := recover(); r != nil {
			results = sameResult(len(members), fmt.Errorf("%w: AKS machine batch panicked: %v", launch.ErrCloud, r))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	results = bt.exec(ctx, template, members)
	if len(results) != len(members) {
		return sameResult(len(members), fmt.Errorf("%w: AKS machine batch returned %d results for %d machines", launch.ErrCloud, len(results), len(members)))
	}
	return results
}

func sameResult(n int, err error) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// putMachineBatch is the launcher's batchExec: one PUT of the template at
// the first member's name with the BatchPutMachine header, then the answer
// split per member.
func (l *Launcher) putMachineBatch(ctx context.Context, template *bootstrap.Machine, members []bootstrap.BatchMember) []error {
	header, err := bootstrap.Batch{Template: template, Members: members}.Header()
	if err != nil {
		return sameResult(len(members), fmt.Errorf("%w: BatchPutMachine header: %w", launch.ErrCloud, err))
	}
	ctx = policy.WithRetryOptions(ctx, batchRetryOptions(l.opts.ClientOptions.Retry))
	req, err := l.machineRequest(ctx, http.MethodPut, l.machinePath(members[0].Name), template)
	if err != nil {
		return sameResult(len(members), err)
	}
	req.Raw().Header.Set(bootstrap.BatchHeaderName, header)
	l.opts.Logger.Info("sending AKS machine batch", "machines", len(members), "first", members[0].Name)
	resp, err := l.send(req, http.StatusOK, http.StatusCreated)
	if err != nil {
		return batchResults(err, members)
	}
	// The answer's operation covers only the first machine; every waiter
	// follows its own machine instead.
	_ = resp.Body.Close()
	return make([]error, len(members))
}

// batchRetryOptions are the launcher's retry options without HTTP 500: a
// batch PUT's 500 may be BatchMachineInternalServerError, whose per-machine
// results must be read, not overwritten by a retry that some machines of
// the batch, then existing, would fail.
func batchRetryOptions(o policy.RetryOptions) policy.RetryOptions {
	codes := o.StatusCodes
	if codes == nil {
		codes = []int{http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
			http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	}
	o.StatusCodes = slices.DeleteFunc(slices.Clone(codes), func(c int) bool { return c == http.StatusInternalServerError })
	return o
}

// batchErrorDetail is one failed machine in a batch error answer.
type batchErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Target  string `json:"target"`
}

// batchResults splits a batch PUT's error per member: the per-machine
// details of BatchMachineClientError and BatchMachineInternalServerError
// (members they do not name were accepted), else err for every member.
func batchResults(err error, members []bootstrap.BatchMember) []error {
	copies := errorCopies(len(members), err)
	re, ok := errors.AsType[*azcore.ResponseError](err)
	if !ok || (re.ErrorCode != batchMachineClientError && re.ErrorCode != batchMachineInternalServerError) {
		return copies
	}
	details, readErr := batchErrorDetails(re)
	if readErr == nil && len(details) == 0 {
		readErr = errors.New("no per-machine details")
	}
	index := make(map[string]int, len(members))
	for i, m := range members {
		index[strings.ToLower(m.Name)] = i
	}
	results := make([]error, len(members))
	for _, d := range details {
		i, ok := index[strings.ToLower(d.Target)]
		if readErr != nil || !ok {
			if readErr == nil {
				readErr = fmt.Errorf("detail %s names machine %q, not in the batch", d.Code, d.Target)
			}
			break
		}
		results[i] = &machineBatchError{Machine: members[i].Name, Code: d.Code, Message: d.Message, Status: re.StatusCode, Batch: copies[i]}
	}
	if readErr != nil {
		for i := range results {
			results[i] = fmt.Errorf("%w %s: %w: %w", errBatchAnswerUnreadable, re.ErrorCode, readErr, copies[i])
		}
	}
	return results
}

// errorCopies returns n copies of a batch's error, one per member, that
// their creates may read at once: reading an *azcore.ResponseError's body
// (runtime.Payload) rewinds a reader it shares with every copy of the
// pointer, so each member gets its own answer with its own body.
func errorCopies(n int, err error) []error {
	out := sameResult(n, err)
	re, ok := err.(*azcore.ResponseError) // l.send returns answers unwrapped; only those are copied
	if !ok || re.RawResponse == nil {
		return out
	}
	body, readErr := runtime.Payload(re.RawResponse)
	if readErr != nil {
		return out
	}
	for i := range out {
		c := *re
		resp := *re.RawResponse
		resp.Body = io.NopCloser(bytes.NewReader(body))
		c.RawResponse = &resp
		out[i] = &c
	}
	return out
}

// batchErrorDetails reads the per-machine details of a batch error answer:
// at the top level for BatchMachineClientError, JSON-encoded in the message
// for BatchMachineInternalServerError. AKS sends these bodies unwrapped; a
// body wrapped in ARM's {"error": ...} is read too.
func batchErrorDetails(re *azcore.ResponseError) ([]batchErrorDetail, error) {
	if re.RawResponse == nil {
		return nil, errors.New("no response body")
	}
	raw, err := runtime.Payload(re.RawResponse)
	if err != nil {
		return nil, err
	}
	type body struct {
		Message string             `json:"message"`
		Details []batchErrorDetail `json:"details"`
	}
	var answer struct {
		body
		Error *body `json:"error"`
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, err
	}
	b := answer.body
	if answer.Error != nil {
		b = *answer.Error
	}
	if re.ErrorCode == batchMachineClientError {
		return b.Details, nil
	}
	var inner struct {
		Details []batchErrorDetail `json:"details"`
	}
	if err := json.Unmarshal([]byte(b.Message), &inner); err != nil {
		return nil, fmt.Errorf("%s message: %w", batchMachineInternalServerError, err)
	}
	return inner.Details, nil
}

// deleteAbandoned is the launcher's batchCleanup: one deleteMachines call.
func (l *Launcher) deleteAbandoned(ctx context.Context, names []string) error {
	l.opts.Logger.Info("deleting AKS machines of abandoned creates", "machines", names)
	if err := l.deleteMachines(ctx, names); err != nil && !isNotFound(err) {
		return cloudError("delete AKS machines", strings.Join(names, ","), err)
	}
	return nil
}

// attemptBatchedMachine is attemptMachine's PUT and wait in mode
// aksmachineapiheaderbatch: the machine joins a batch, then its own GETs
// follow it until AKS has built it or failed.
func (l *Launcher) attemptBatchedMachine(ctx context.Context, log *slog.Logger, req *launch.Request, name string, c launch.Choice,
	body bootstrap.Machine) (*launch.Instance, *launch.LaunchError) {
	err := l.batcher.create(ctx, name, body)
	if errors.Is(err, errLeftBatch) {
		log.Warn("launch cancelled while batching", "error", err)
		return nil, launch.NewLaunchError(launch.ReasonCloudError, req.NodeClaimName, c, err)
	}
	if me, ok := errors.AsType[*machineBatchError](err); ok {
		le := classifyFailure(armFailure{code: me.Code, message: me.Message, status: me.Status},
			slices.Concat(machineRules, armRules), err, req.NodeClaimName, c, l.opts.Cache)
		log.Warn("launch failed", "reason", le.Reason, "error", err)
		return nil, le
	}
	if err != nil {
		return nil, l.machineFailed(ctx, log, req, name, c, err, nil, machineMayExist(err))
	}
	m, err := l.waitMachine(ctx, name)
	if err != nil {
		return nil, l.machineFailed(ctx, log, req, name, c, err, m.provisioningError(), true)
	}
	inst, err := l.machineInstance(m)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, req.NodeClaimName, c, err)
	}
	log.Info("launched", "providerID", inst.ProviderID)
	return inst, nil
}

// waitMachine looks at the machine every PollFrequency until it has succeeded or failed. A
// failed machine is returned with the error, so its recorded provisioning error can be classified.
func (l *Launcher) waitMachine(ctx context.Context, name string) (*machineResource, error) {
	defer l.watch.join()()
	for {
		m, err := l.pollMachine(ctx, name)
		if err != nil {
			return nil, err
		}
		switch m.state() {
		case launch.StateSucceeded:
			return m, nil
		case launch.StateFailed:
			msg := "no provisioning error recorded"
			if pe := m.provisioningError(); pe != nil {
				msg = pe.Code + ": " + pe.text()
			}
			return m, fmt.Errorf("AKS machine %s failed: %s", name, msg)
		case launch.StateDeleting:
			return nil, fmt.Errorf("AKS machine %s is being deleted", name)
		}
		if err := sleep(ctx, l.opts.PollFrequency); err != nil {
			return nil, err
		}
	}
}

// pollMachine reads the machine: from the pool list all waiters share (machineWatch) when enough
// machines are awaited for it to cost fewer reads, else, or when that list did not show it, by
// its own GET within PollRate.
func (l *Launcher) pollMachine(ctx context.Context, name string) (*machineResource, error) {
	if l.watch.worthListing() {
		m, ok, err := l.watch.look(ctx, name)
		if err != nil || ok {
			return m, err
		}
	}
	if err := l.pace.turn(ctx); err != nil {
		return nil, err
	}
	// A refused GET is no news of the machine (see pollOnce).
	return untilAnswered(ctx, l.opts.PollFrequency, func() (*machineResource, error) { return l.getMachine(ctx, name) })
}
