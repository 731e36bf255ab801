package controller

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// TestUpdateConsolidatable: as Karpenter, a claim shows Consolidatable=True once consolidateAfter
// has passed and no condition before, so a claim within consolidateAfter costs no write; a pod
// event on a consolidatable claim removes the condition; a pod event newer than the recorded one is
// written once the recorded one is Karpenter's dedupe timeout (10 s) old.
func TestUpdateConsolidatable(t *testing.T) {
	t.Parallel()
	initAt := testNow.Add(-time.Minute)
	tests := []struct {
		name      string
		shown     bool          // the claim carries Consolidatable=True
		recorded  time.Duration // status.lastPodEventTime, before testNow; 0: none
		lastEvent time.Duration // in memory, before testNow; 0: none
		want      *bool         // the condition afterwards: nil absent
		writes    int
		stored    time.Duration // status.lastPodEventTime afterwards, before testNow; 0: none
	}{
		{name: "within consolidateAfter: no write", recorded: 5 * time.Second, writes: 0},
		{name: "passed: True", want: ptrTo(true), writes: 1},
		{name: "passed and shown: no write", shown: true, want: ptrTo(true), writes: 0},
		{name: "a pod landed on a consolidatable claim: removed", shown: true, lastEvent: 5 * time.Second, writes: 1, stored: 5 * time.Second},
		{name: "a newer pod event within the dedupe: not yet written", recorded: 8 * time.Second, lastEvent: 3 * time.Second,
			writes: 0, stored: 8 * time.Second},
		{name: "a newer pod event past the dedupe: written", recorded: 12 * time.Second, lastEvent: 3 * time.Second,
			writes: 1, stored: 3 * time.Second},
		{name: "the same second as recorded: no write", recorded: 20 * time.Second, lastEvent: 20 * time.Second,
			writes: 0, stored: 20 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
			e.c.catalogues = newCatalogueCache(func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return cat, nil },
				e.c.cfg.Offerings)
			e.addClass(t, "default")
			pool := poolOf("default", "default")
			pool.Spec.Disruption.ConsolidateAfter = api.NewDuration(30 * time.Second)
			e.addPool(t, pool)
			opts := []claimOpt{launched(), registered(), withCondition(api.ConditionInitialized, metav1.ConditionTrue, "Initialized", initAt),
				withLabel(api.LabelNodePool, "default")}
			if tt.shown {
				opts = append(opts, withCondition(api.ConditionConsolidatable, metav1.ConditionTrue, "True", initAt))
			}
			nc := testClaim("default-1", "default", testProviderID, opts...)
			nc.Status.NodeName = "n1"
			if tt.recorded > 0 {
				nc.Status.LastPodEventTime = metav1.NewTime(testNow.Add(-tt.recorded))
			}
			e.addClaim(t, nc)
			if tt.lastEvent > 0 {
				e.c.state.podEvent("n1", testNow.Add(-tt.lastEvent))
			}
			e.dyn.ClearActions()
			e.c.updateConsolidatable(context.Background(), e.c.takeSnapshot())
			assert.Len(t, writes(e.dyn.Actions()), tt.writes)
			stored := e.storedClaim(t, nc.Name)
			if tt.stored > 0 {
				assert.Equal(t, testNow.Add(-tt.stored).Unix(), stored.Status.LastPodEventTime.Unix())
			}
			got := condition(stored, api.ConditionConsolidatable)
			if tt.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, metav1.ConditionTrue, got.Status)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
