package consolidation

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closed is a Stop channel closed from the start.
func closed() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// validatable are plan's commands Validate accepts.
func validatable(plan *Plan) []Command {
	var cmds []Command
	for _, cmd := range plan.Commands {
		if cmd.Reason == ReasonEmpty || cmd.Reason == ReasonUnderutilized {
			cmds = append(cmds, cmd)
		}
	}
	return cmds
}

// TestStopBefore: with Options.Stop closed, Decide and Validate return ErrStopped and no result,
// whatever the cluster.
func TestStopBefore(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"validate fixture", fxValidateCluster().input()},
		{"200 nodes", benchCluster{nodes: 200, pools: 2, seed: 7}.build(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := Decide(tc.in)
			require.NoError(t, err)
			require.NotEmpty(t, plan.Commands, "the fixture must give commands to validate")
			stopped := tc.in
			stopped.Options.Stop = closed()
			got, err := Decide(stopped)
			require.ErrorIs(t, err, ErrStopped)
			assert.Nil(t, got)
			verdicts, err := Validate(stopped, validatable(plan))
			require.ErrorIs(t, err, ErrStopped)
			assert.Nil(t, verdicts)
		})
	}
}

// TestStopDuring: a Stop closed while a pass over 2,000 nodes runs ends it (ErrStopped, not a
// finished pass) within a simulation or so.
func TestStopDuring(t *testing.T) {
	in := benchCluster{nodes: 2000, pools: 2, seed: 7}.build(t)
	full, err := Decide(in)
	require.NoError(t, err)
	require.Greater(t, full.Stats.Simulations, 10, "the pass must be long enough to stop in")
	for _, tc := range []struct {
		name string
		run  func(Input) error
	}{
		{"Decide", func(in Input) error { _, err := Decide(in); return err }},
		{"Validate", func(in Input) error { _, err := Validate(in, validatable(full)); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each pass is timed on its own: Validate of the plan's commands is much shorter than
			// Decide, and a sleep sized by Decide let it finish before the close on a loaded machine.
			began := time.Now()
			require.NoError(t, tc.run(in))
			whole := time.Since(began)
			stop := make(chan struct{})
			in := in
			in.Options.Stop = stop
			done := make(chan error, 1)
			go func() { done <- tc.run(in) }()
			time.Sleep(whole / 10) // past the simulator's compile, into the simulations
			close(stop)
			closedAt := time.Now()
			select {
			case err := <-done:
				require.ErrorIs(t, err, ErrStopped)
				// ErrStopped says it ended before it finished; the bound only catches a stop that waits
				// far longer than the pass (a shared machine stretches one simulation a lot).
				assert.Less(t, time.Since(closedAt), max(2*whole, 200*time.Millisecond), "stopped %s after the close", time.Since(closedAt))
			case <-time.After(2*whole + 5*time.Second):
				t.Fatalf("%s did not stop within %s of the close", tc.name, 2*whole+5*time.Second)
			}
		})
	}
}

// TestStopOpenSamePlan: a Stop that is never closed changes nothing: the same commands, moves and
// figures (but the time taken) as without one, and the same validations.
func TestStopOpenSamePlan(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"validate fixture", fxValidateCluster().input()},
		{"200 nodes", benchCluster{nodes: 200, pools: 2, seed: 7}.build(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Decide(tc.in)
			require.NoError(t, err)
			open := tc.in
			open.Options.Stop = make(chan struct{})
			got, err := Decide(open)
			require.NoError(t, err)
			want.Stats.DecideMillis, got.Stats.DecideMillis = 0, 0
			assert.Equal(t, want, got)
			wantV, errW := Validate(tc.in, validatable(want))
			gotV, errG := Validate(open, validatable(want))
			require.NoError(t, errors.Join(errW, errG))
			assert.Equal(t, wantV, gotV)
		})
	}
}
