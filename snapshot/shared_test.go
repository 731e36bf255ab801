package snapshot_test

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/consolidation"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// TestSharedPodSpecsStayUnchanged is what lets `napkit plan` and `napkit consolidate` decode with
// manifest.Decoder.ShareTemplates: pods of one shape then share their spec's slices, maps and
// pointers, so a write into one would change them all. Reading the set (Owned), taking the
// snapshot, planning and deciding consolidation must write to no pod: every pod equals, after all
// of it, a deep copy taken before.
func TestSharedPodSpecsStayUnchanged(t *testing.T) {
	data, err := os.ReadFile("testdata/shared-specs.yaml")
	require.NoError(t, err)
	set, err := (&manifest.Decoder{ShareTemplates: true}).Decode(bytes.NewReader(data), "shared-specs.yaml")
	require.NoError(t, err)
	objects, err := snapshot.Read(set, sharedPools(t, set), snapshot.ReadOptions{Owned: true})
	require.NoError(t, err)
	before := make([]*corev1.Pod, len(objects.Pods))
	containers := map[*corev1.Container]bool{}
	for i, pod := range objects.Pods {
		before[i] = pod.DeepCopy()
		containers[&pod.Spec.Containers[0]] = true
	}
	require.Len(t, objects.Pods, 19, "16 pods and 3 Deployment replicas")
	require.Less(t, len(containers), 16, "pods of one shape share their containers")

	s, err := snapshot.Take(objects, snapshot.Options{Now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), Strict: true})
	require.NoError(t, err)
	plan, err := provisioner.Solve(s.ProvisionerInput(provisioner.Options{}))
	require.NoError(t, err)
	require.NotEmpty(t, plan.NodeClaims, "the plan placed pods")
	_, err = consolidation.Decide(s.ConsolidationInput(consolidation.Options{AllowSplit: true}))
	require.NoError(t, err)

	for i, pod := range objects.Pods {
		assert.Equal(t, before[i], pod, "pod %s/%s", pod.Namespace, pod.Name)
	}
}

// sharedPools pairs each NodePool of set with the embedded eastus catalogue built for its node class.
func sharedPools(t *testing.T, set *manifest.Set) []provisioner.NodePoolInput {
	t.Helper()
	list, err := instancetype.LoadDefault("eastus")
	require.NoError(t, err)
	opts, err := instancetype.DefaultOptions("eastus", api.DefaultClusterNetwork())
	require.NoError(t, err)
	var pools []provisioner.NodePoolInput
	for _, pool := range set.NodePools {
		opts.NodeClass = set.NodeClass(pool.Spec.Template.Spec.NodeClassRef.Name)
		cat, err := list.Build(opts)
		require.NoError(t, err)
		pools = append(pools, provisioner.NodePoolInput{NodePool: pool, InstanceTypes: cat.InstanceTypes})
	}
	return pools
}
