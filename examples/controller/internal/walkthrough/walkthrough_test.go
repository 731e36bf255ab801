package walkthrough

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestRunWalkthrough runs the README's first command in-process: the whole controller against the
// fake API server and the simulated Azure. Every pod must run, every launched node must be gone at
// the end, no VM may be left behind, and no goroutine may outlive Run.
func TestRunWalkthrough(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var out bytes.Buffer
	sum, err := Run(context.Background(), Options{Out: &out})
	require.NoError(t, err, out.String())
	assert.Equal(t, replicas, sum.PodsWanted)
	assert.Equal(t, sum.PodsWanted, sum.PodsRunning, "pods running")
	assert.Positive(t, sum.NodesLaunched, "nodes launched")
	assert.Equal(t, sum.NodesLaunched, sum.NodesRemoved, "every launched node removed")
	assert.Zero(t, sum.LeakedVMs, "leaked VMs")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Equal(t, sum.String(), lines[len(lines)-1], "the summary line ends the narration")
	for _, want := range []string{"kubectl scale deployment inflate", "kubectl delete deployment inflate",
		"kubectl delete node", "karpenter.sh/termination finalizer"} {
		assert.Contains(t, out.String(), want)
	}
}

// TestRunTimesOut: a walkthrough that cannot finish in its time fails with the reason, not a hang.
func TestRunTimesOut(t *testing.T) {
	var out bytes.Buffer
	_, err := Run(context.Background(), Options{Out: &out, Timeout: 50_000_000}) // 50 ms
	require.Error(t, err)
}
