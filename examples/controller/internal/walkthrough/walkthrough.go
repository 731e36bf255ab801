// Package walkthrough runs the seed walkthrough of karpenter-provider-azure in-process: the
// controller, unchanged, against client-go's fake API server and the simulated Azure, with small
// stand-ins for kube-scheduler and the Deployment controller. It prints what happens as it
// happens and measures the figures of its one summary line.
package walkthrough

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// The walkthrough's workload: the seed's inflate Deployment, scaled to 5 pods of 1 CPU.
const (
	deployment = "inflate"
	replicas   = 5
)

// Options configure Run.
type Options struct {
	// Out receives the narration and the summary line.
	Out io.Writer
	// Logger receives the controller's, launcher's and simulated kubelet's logs (discarded when nil).
	Logger *slog.Logger
	// Timeout bounds the whole walkthrough (1 minute when zero); StepTimeout each step (30 s).
	Timeout, StepTimeout time.Duration
}

// Summary is what the walkthrough measured.
type Summary struct {
	PodsRunning, PodsWanted, NodesLaunched, NodesRemoved, LeakedVMs int
}

// String is the summary line.
func (s Summary) String() string {
	return fmt.Sprintf("walkthrough: pods running %d/%d, nodes launched %d, nodes removed %d, leaked VMs %d",
		s.PodsRunning, s.PodsWanted, s.NodesLaunched, s.NodesRemoved, s.LeakedVMs)
}

// Run runs the walkthrough. It returns the summary and an error naming the step that failed, if
// one did; the summary line itself is printed only on success.
func Run(ctx context.Context, opts Options) (Summary, error) {
	if opts.Timeout == 0 {
		opts.Timeout = time.Minute
	}
	if opts.StepTimeout == 0 {
		opts.StepTimeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e, err := newEnv(opts.Out, opts.Logger)
	if err != nil {
		return Summary{}, fmt.Errorf("set up: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, fmt.Errorf("walkthrough took over %s", opts.Timeout))
	defer cancel()
	runCtx, stop := context.WithCancelCause(ctx)
	var failed error
	var once sync.Once
	e.start(runCtx, func(err error) { once.Do(func() { failed = err; stop(err) }) })
	s := &script{env: e, stepTimeout: opts.StepTimeout}
	sum, err := s.run(runCtx)
	stop(nil)
	e.running.Wait()
	if failed != nil {
		err = errors.Join(err, failed)
	}
	if err != nil {
		return sum, err
	}
	fmt.Fprintln(opts.Out, sum)
	return sum, nil
}
