package snapshot_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/snapshot"
)

// TestPropertyPodPartition: on random clusters every pod lands in exactly one place: among one
// node's pods (bound there, or nominated there and still waiting), among the pending pods, or
// nowhere (finished, being deleted, a DaemonSet's). Where each pod must land is computed here from
// its fields alone, independently of the snapshot's code, and a node is Nominated exactly when a
// waiting pod is nominated to it.
func TestPropertyPodPartition(t *testing.T) {
	pooled := labels(api.LabelNodePool, "default", api.LabelInstanceType, d2, api.LabelZone, "eastus-1", api.LabelCapacityType, "on-demand")
	nodeNames := []string{"n0", "n1", "n2"}
	targets := append([]string{"", "gone"}, nodeNames...) // "" unbound / not nominated; "gone": no such Node
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var nodes []*corev1.Node
		for _, name := range nodeNames {
			nodes = append(nodes, node(name, ready(t0), pooled))
		}
		pods := make([]*corev1.Pod, rng.IntN(12))
		want := map[string]string{} // pod name -> node name, "pending" or "none"
		wantNominated := map[string]bool{}
		for i := range pods {
			p := pod(fmt.Sprintf("p%d", i), "")
			bound, nominated := targets[rng.IntN(len(targets))], targets[rng.IntN(len(targets))]
			if bound == "gone" {
				bound = "" // a pod bound to a missing Node is an issue of its own (TestTakeIssues)
			}
			p.Spec.NodeName, p.Status.NominatedNodeName = bound, nominated
			deleting, finished, daemon := rng.IntN(6) == 0, rng.IntN(6) == 0, rng.IntN(6) == 0
			if deleting {
				p.DeletionTimestamp = &metav1.Time{Time: t0}
			}
			if finished {
				p.Status.Phase = corev1.PodSucceeded
			}
			if daemon {
				p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
			}
			waiting := !deleting && !finished && !daemon
			switch {
			case bound != "":
				want[p.Name] = bound
			case waiting && nominated != "" && nominated != "gone":
				want[p.Name] = nominated
				wantNominated[nominated] = true
			case waiting:
				want[p.Name] = "pending"
			default:
				want[p.Name] = "none"
			}
			pods[i] = p
		}
		s, err := snapshot.Take(snapshot.Objects{Nodes: nodes, Pods: pods, NodePools: pools()},
			snapshot.Options{Now: t0.Add(time.Hour)})
		require.NoError(t, err, "seed %d", seed)

		got := map[string]string{}
		place := func(name, where string) {
			if prev, dup := got[name]; dup {
				t.Errorf("seed %d: pod %s both in %s and %s", seed, name, prev, where)
			}
			got[name] = where
		}
		for _, n := range s.Nodes {
			for _, p := range n.Pods {
				place(p.Name, n.Node.Node.Name)
			}
			assert.Equal(t, wantNominated[n.Node.Node.Name], n.Nominated, "seed %d: node %s Nominated", seed, n.Node.Node.Name)
		}
		for _, p := range s.ProvisionerInput(provisioner.Options{}).Pods {
			place(p.Name, "pending")
		}
		for _, p := range pods {
			if _, ok := got[p.Name]; !ok {
				got[p.Name] = "none"
			}
		}
		assert.Equal(t, want, got, "seed %d", seed)
	}
}
