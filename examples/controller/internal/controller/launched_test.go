package controller

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch"
)

// TestMarkLaunchedWritesTwice: the launched labels and then the status are written with no read
// and no conflict in between: the status write starts from what the label write returned, not
// from the informer's copy, which has not seen that write yet.
func TestMarkLaunchedWritesTwice(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	nc := testClaim("default-1", "default", "")
	e.addClaim(t, nc)
	it := &instancetype.InstanceType{Name: d2, Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
	cat := &instancetype.Catalogue{InstanceTypes: []*instancetype.InstanceType{it}}
	inst := &launch.Instance{Name: "aks-default-1", ProviderID: testProviderID, SKU: d2, Zone: "eastus-1",
		CapacityType: api.CapacityTypeOnDemand}
	e.dyn.ClearActions()
	require.NoError(t, e.c.markLaunched(context.Background(), nc.Name, inst, cat))
	var verbs []string
	for _, a := range e.dyn.Actions() {
		verbs = append(verbs, a.GetVerb()+" "+a.GetSubresource())
	}
	assert.Equal(t, []string{"update ", "update status"}, verbs)
	got := e.storedClaim(t, nc.Name)
	assert.True(t, claimLaunched(got))
	assert.Equal(t, "eastus-1", got.Labels[api.LabelZone])
}
