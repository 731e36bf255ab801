package schedreplay

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
)

// randomCluster is a mix like the scale suite's: nodes of a few sizes in three zones, pods of
// Karpenter's benchmark shapes, some anti-affine per host, some spread over zones.
func randomCluster(r *rand.Rand, nodes, pods int) ([]Node, []*corev1.Pod) {
	sizes := [][2]string{{"2", "4Gi"}, {"4", "16Gi"}, {"16", "64Gi"}, {"64", "256Gi"}}
	ns := make([]Node, nodes)
	for i := range ns {
		s := sizes[r.IntN(len(sizes))]
		ns[i] = node(fmt.Sprintf("n%d", i), s[0], s[1], fmt.Sprintf("z%d", i%3))
	}
	cpus := []string{"100m", "250m", "500m", "1", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	queue := make([]*corev1.Pod, pods)
	for i := range queue {
		d := r.IntN(20)
		name := fmt.Sprintf("d%d", d)
		opts := []podOpt{app(name), owned(name)}
		switch d % 10 {
		case 3:
			opts = append(opts, zoneSpread(name, 1, corev1.DoNotSchedule))
		case 7:
			opts = append(opts, antiAffine(name, corev1.LabelHostname))
		}
		queue[i] = pod(fmt.Sprintf("%s-%d", name, i), cpus[d%len(cpus)], mems[(d/len(cpus))%len(mems)], opts...)
	}
	return ns, queue
}

// TestReplayInvariants checks, on random clusters, what any kube-scheduler placement satisfies:
// every pod is placed or orphaned once, no node is over its allocatable, no two anti-affine
// pods share a host, zone spreads stay within their skew, and the same input gives the same
// result.
func TestReplayInvariants(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		nodes, queue := randomCluster(r, 1+r.IntN(30), r.IntN(400))
		res, err := Replay(nodes, queue)
		require.NoError(t, err)
		again, err := Replay(nodes, queue)
		require.NoError(t, err)
		require.Equal(t, res, again, "seed %d: not deterministic", seed)
		require.Equal(t, len(queue), len(res.Placed)+len(res.Orphans), "seed %d", seed)
		checkRoom(t, nodes, queue, res)
		checkAntiAffinity(t, queue, res)
		checkZoneSkew(t, nodes, queue, res)
	}
}

func checkRoom(t *testing.T, nodes []Node, queue []*corev1.Pod, res *Result) {
	used := map[string]map[corev1.ResourceName]int64{}
	for _, p := range queue {
		n, ok := res.Placed[podKey(p)]
		if !ok {
			continue
		}
		if used[n] == nil {
			used[n] = map[corev1.ResourceName]int64{}
		}
		for name, v := range provisioner.PodRequests(p) {
			used[n][name] += v
		}
	}
	for _, n := range nodes {
		for name, q := range n.Allocatable {
			assert.LessOrEqual(t, used[n.Name][name], provisioner.QuantityValue(name, q), "node %s %s", n.Name, name)
		}
	}
}

func checkAntiAffinity(t *testing.T, queue []*corev1.Pod, res *Result) {
	seen := map[string]string{}
	for _, p := range queue {
		n, ok := res.Placed[podKey(p)]
		if !ok || p.Spec.Affinity == nil {
			continue
		}
		k := p.Labels["app"] + "@" + n
		assert.Empty(t, seen[k], "%s shares %s with %s", p.Name, n, seen[k])
		seen[k] = p.Name
	}
}

func checkZoneSkew(t *testing.T, nodes []Node, queue []*corev1.Pod, res *Result) {
	zone := map[string]string{}
	for _, n := range nodes {
		zone[n.Name] = n.Labels[corev1.LabelTopologyZone]
	}
	zones := map[string]bool{}
	for _, z := range zone {
		zones[z] = true
	}
	counts := map[string]map[string]int{}
	for _, p := range queue {
		n, ok := res.Placed[podKey(p)]
		if !ok || len(p.Spec.TopologySpreadConstraints) == 0 {
			continue
		}
		if counts[p.Labels["app"]] == nil {
			counts[p.Labels["app"]] = map[string]int{}
		}
		counts[p.Labels["app"]][zone[n]]++
	}
	for appName, c := range counts {
		lo, hi := len(queue), 0
		for z := range zones {
			lo, hi = min(lo, c[z]), max(hi, c[z])
		}
		assert.LessOrEqual(t, hi-lo, 1, "app %s zones %v", appName, c)
	}
}
