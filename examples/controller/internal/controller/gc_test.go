package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/napkit/napkit/launch"
)

// askingCollector is a GarbageCollector that asks owned about each name and records the answers.
type askingCollector struct {
	names   []string
	answers map[string]bool
}

func (g *askingCollector) CollectGarbage(_ context.Context, owned func(string) bool, _ time.Duration, _ time.Time) (launch.GCResult, error) {
	g.answers = map[string]bool{}
	for _, name := range g.names {
		g.answers[name] = owned(name)
	}
	return launch.GCResult{}, nil
}

// TestGarbageOwnership: a VM is owned while its NodeClaim is in the cache, even one the controller
// cannot decode (its VM must not be collected for that), or while its launch is under way.
func TestGarbageOwnership(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	e.addClaim(t, testClaim("default-1", "default", testProviderID, launched()))
	undecodable := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": "default-2"}, "spec": "not an object"}}
	require.NoError(t, e.c.inf.claims.GetIndexer().Add(undecodable))
	gc := &askingCollector{names: []string{"default-1", "default-2", "default-3"}}
	e.c.collectGarbage(context.Background(), gc)
	assert.Equal(t, map[string]bool{"default-1": true, "default-2": true, "default-3": false}, gc.answers)
}

// BenchmarkGarbageOwnership: one collection pass asking about 1,000 VMs whose claims are cached.
func BenchmarkGarbageOwnership(b *testing.B) {
	e := newTestEnv(b)
	gc := &askingCollector{}
	for i := range 1000 {
		name := fmt.Sprintf("default-%d", i)
		require.NoError(b, e.c.inf.claims.GetIndexer().Add(cachedForm(b, benchClaimNamed(name))))
		gc.names = append(gc.names, name)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.c.collectGarbage(context.Background(), gc)
	}
}
