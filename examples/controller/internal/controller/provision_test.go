package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/provisioner"
)

// TestCreateClaims: a batch's NodeClaims are written in parallel; the names come back in plan
// order, a failed create leaves out only its own claim (and is the error), and a claim of a
// NodePool that is gone ends the batch there.
func TestCreateClaims(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		pools     []string // NodePool of each planned claim
		failName  string   // the create of this name fails
		wantNames []string
		wantErr   string
	}{
		{name: "all written", pools: []string{"default", "default", "default"},
			wantNames: []string{"default-1", "default-2", "default-3"}},
		{name: "one create fails", pools: []string{"default", "default", "default", "default"}, failName: "default-2",
			wantNames: []string{"default-1", "default-3", "default-4"}, wantErr: "boom"},
		{name: "pool gone", pools: []string{"default", "default", "gone", "default"},
			wantNames: []string{"default-1", "default-2"}, wantErr: `planned NodeClaim p2: NodePool "gone" is gone`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newTestEnv(t)
			cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{{Name: d2}}}
			e.c.catalogues = newCatalogueCache(func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return cat, nil },
				e.c.cfg.Offerings)
			e.addClass(t, "default")
			e.addPool(t, poolOf("default", "default"))
			e.dyn.PrependReactor("create", "nodeclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
				obj := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured)
				if obj.GetName() == tc.failName {
					return true, nil, errors.New("boom")
				}
				return false, nil, nil
			})
			var planned []provisioner.NodeClaim
			for i, pool := range tc.pools {
				planned = append(planned, provisioner.NodeClaim{Name: fmt.Sprintf("p%d", i), NodePool: pool, InstanceType: d2,
					InstanceTypeOptions: []string{d2}})
			}
			names, err := e.c.createClaims(context.Background(), e.c.takeSnapshot(), planned, "provisioning")
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.wantNames, names)
			list, err := e.dyn.Resource(NodeClaimsGVR).List(context.Background(), metav1.ListOptions{})
			require.NoError(t, err)
			var stored []string
			for _, u := range list.Items {
				stored = append(stored, u.GetName())
			}
			assert.ElementsMatch(t, tc.wantNames, stored, "exactly the claims reported were written")
		})
	}
}
