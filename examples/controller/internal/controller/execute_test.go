package controller

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
)

// TestReplacementsReady: a replacement the cache has not shown yet is still coming (the informer
// lags the create), not a failure; one that was seen and then vanished, is being deleted or failed
// to launch fails the command; all initialized is ready.
func TestReplacementsReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cached  []*api.NodeClaim // what the informer holds
		seen    []string         // claims earlier polls saw
		ready   bool
		wantErr string
	}{
		{name: "not in the cache yet", ready: false},
		{name: "seen, then gone", seen: []string{"r1"}, wantErr: "replacement NodeClaim r1 failed"},
		{name: "launching", cached: []*api.NodeClaim{testClaim("r1", "default", "")}, ready: false},
		{name: "launch failed", cached: []*api.NodeClaim{testClaim("r1", "default", "",
			withCondition(api.ConditionLaunched, metav1.ConditionFalse, "LaunchFailed", testNow))},
			wantErr: "replacement NodeClaim r1 failed"},
		{name: "being deleted", cached: []*api.NodeClaim{testClaim("r1", "default", "", claimDeleting())},
			wantErr: "replacement NodeClaim r1 failed"},
		{name: "initialized", cached: []*api.NodeClaim{testClaim("r1", "default", pid("r1"), launched(), registered(), initialized())},
			ready: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			e.addClaim(t, tc.cached...)
			seen := map[string]bool{}
			for _, name := range tc.seen {
				seen[name] = true
			}
			ready, err := e.c.replacementsReady([]string{"r1"}, seen)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ready, ready)
			assert.Equal(t, len(tc.cached) > 0, seen["r1"], "a claim the cache showed is remembered as seen")
		})
	}
}
