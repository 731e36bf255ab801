package controller

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/provisioner"
)

// scaleMixInput is the scale suite's first batch (examples/controller/e2e/scale_workload_test.go):
// pods of 50 Deployments of Karpenter's benchmark shapes, one in ten spread over zones, one in
// ten anti-affine per host, on an on-demand amd64 pool of the whole eastus catalogue.
func scaleMixInput(t testing.TB, replicas int) provisioner.Input {
	build, err := NewCatalogue("eastus", api.DefaultClusterNetwork(), launch.NewUnavailableOfferings(time.Now))
	require.NoError(t, err)
	class := &api.AKSNodeClass{}
	class.Default()
	cat, err := build(class)
	require.NoError(t, err)
	pool := poolOf("scale", "default")
	pool.Spec.Template.Spec.Requirements = []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
		{Key: api.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{api.CapacityTypeOnDemand}}}
	in := provisioner.Input{NodePools: []provisioner.NodePoolInput{{NodePool: pool, InstanceTypes: cat.InstanceTypes}}}
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	yes := true
	for r := 0; r < replicas; r++ {
		for i := 0; i < 50; i++ {
			name := fmt.Sprintf("shape-%02d", i)
			p := newPod(fmt.Sprintf("%s-%d", name, r), cpuRequest(cpus[i%5]))
			p.Labels = map[string]string{"app": name}
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = resource.MustParse(mems[(i/5)%6])
			p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: name, UID: types.UID(name), Controller: &yes}}
			p.CreationTimestamp = metav1.NewTime(testNow.Add(time.Duration(r*50+i) * time.Millisecond))
			own := &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
			if i%10 == 3 {
				p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: api.LabelZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: own}}
			}
			if i%10 == 7 {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: api.LabelHostname, LabelSelector: own}}}}
			}
			in.Pods = append(in.Pods, p)
		}
	}
	return in
}

// TestCoverOrphansScaleMix: on the suite's 1,000-pod batch the replay predicts orphans (the
// one-per-host pods, as the suite measured) and the reserve claims hold every one of them.
func TestCoverOrphansScaleMix(t *testing.T) {
	t.Parallel()
	in := scaleMixInput(t, 20)
	plan, err := provisioner.Solve(in)
	require.NoError(t, err)
	e := newTestEnv(t)
	reserve, err := e.c.coverOrphans(in, plan)
	require.NoError(t, err)
	orphans := 0
	for _, nc := range reserve {
		orphans += len(nc.Pods)
		for _, key := range nc.Pods {
			assert.Contains(t, []string{"07", "17", "27", "37", "47"}, key[len("default/shape-"):len("default/shape-")+2],
				"%s: an anti-affine shape", key)
		}
	}
	assert.Positive(t, orphans)
	placed := 0
	for _, nc := range plan.NodeClaims {
		placed += len(nc.Pods)
	}
	assert.Equal(t, len(in.Pods), placed+orphans, "every pod on a claim or a reserve")
}

// BenchmarkCoverOrphans is the replay and the orphans' plan of the suite's 1,000-pod batch (its
// first Solve is not counted).
func BenchmarkCoverOrphans(b *testing.B) {
	in := scaleMixInput(b, 20)
	plan, err := provisioner.Solve(in)
	require.NoError(b, err)
	c := &Controller{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for b.Loop() {
		p := *plan
		p.NodeClaims = slices.Clone(plan.NodeClaims)
		if _, err := c.coverOrphans(in, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredictNominations is NominatePredicted's work on the suite's 1,000-pod batch: the
// rounds of replays that choose the nominations, and the claims refitted to the replay's
// placement (its first Solve is not counted).
func BenchmarkPredictNominations(b *testing.B) {
	in := scaleMixInput(b, 20)
	plan, err := provisioner.Solve(in)
	require.NoError(b, err)
	c := &Controller{log: slog.New(slog.NewTextHandler(io.Discard, nil)), cfg: Config{Seed: 7}}
	for b.Loop() {
		p := *plan
		p.NodeClaims = slices.Clone(plan.NodeClaims)
		if _, err := c.predictNominations(in, &p); err != nil {
			b.Fatal(err)
		}
	}
}
