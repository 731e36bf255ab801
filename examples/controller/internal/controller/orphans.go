package controller

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/provisioner"
	"github.com/napkit/napkit/schedreplay"
)

// coverOrphans replays kube-scheduler's placement of the pods the plan put on new NodeClaims and
// returns NodeClaims for the pods the replay predicts it will leave without room (the reserve:
// reserve.go says why their nodes are held back). The plan's claims' Pods become the replay's
// placement, which is what the held-pods record then counts on.
//
// Why: kube-scheduler binds a burst with LeastAllocated scoring and the default spread, not as the
// plan packed it, and the pods it places last (one-per-host anti-affinity, large shapes) then
// find no hole: a 1,000-pod batch of 52 claims got 13-27 more claims 25-48 s later, one batch
// after another (docs/benchmarks.md, issue 18). The replay (package schedreplay) predicts those
// orphans from the plan itself, so their claims are created in the same batch.
func (c *Controller) coverOrphans(in provisioner.Input, plan *provisioner.Plan) ([]provisioner.NodeClaim, error) {
	byKey := podsByKey(in.Pods)
	claims := newReplayClaims(plan.NodeClaims, byKey)
	res, err := schedreplay.Replay(claims.nodes(), claims.queue(byKey))
	if err != nil {
		return nil, fmt.Errorf("replay kube-scheduler on %d NodeClaims: %w", len(claims.planned), err)
	}
	claims.assign(res)
	claims.refit(in, byKey)
	plan.NodeClaims = claims.nonEmpty()
	if len(res.Orphans) == 0 {
		return nil, nil
	}
	more, err := provisioner.Solve(orphanInput(in, plan, claims, res.Orphans, byKey))
	if err != nil {
		return nil, fmt.Errorf("plan %d predicted orphans: %w", len(res.Orphans), err)
	}
	c.log.Info("planned reserve NodeClaims for kube-scheduler's predicted orphans", "orphans", len(res.Orphans),
		"newNodeClaims", len(more.NodeClaims), "pricePerHour", more.Cost.PricePerHour)
	return more.NodeClaims, nil
}

// replayClaims are the planned NodeClaims as the replay sees them: a unique name (the plan's
// names are per Solve), and the room their DaemonSets take.
type replayClaims struct {
	planned  []provisioner.NodeClaim
	reserved []map[corev1.ResourceName]int64
	pods     map[string]bool // every pod the plan put on a new claim
}

func newReplayClaims(planned []provisioner.NodeClaim, byKey map[string]*corev1.Pod) *replayClaims {
	rc := &replayClaims{pods: map[string]bool{}}
	rc.add(planned, byKey)
	return rc
}

// add appends claims, working out their reserved room: the plan's requests minus its pods'.
func (rc *replayClaims) add(planned []provisioner.NodeClaim, byKey map[string]*corev1.Pod) {
	for _, nc := range planned {
		reserved := map[corev1.ResourceName]int64{}
		for name, q := range nc.Requests {
			reserved[name] = provisioner.QuantityValue(name, q)
		}
		for _, key := range nc.Pods {
			rc.pods[key] = true
			if pod := byKey[key]; pod != nil {
				for name, v := range provisioner.PodRequests(pod) {
					reserved[name] -= v
				}
			}
		}
		rc.planned = append(rc.planned, nc)
		rc.reserved = append(rc.reserved, reserved)
	}
}

func replayName(i int) string { return "planned-" + strconv.Itoa(i) }

// nodes are the claims as empty nodes (the hostname their index, as a new node's is its own).
func (rc *replayClaims) nodes() []schedreplay.Node {
	out := make([]schedreplay.Node, len(rc.planned))
	for i, nc := range rc.planned {
		labels := make(map[string]string, len(nc.Labels)+1)
		for k, v := range nc.Labels {
			labels[k] = v
		}
		labels[corev1.LabelHostname] = replayName(i)
		out[i] = schedreplay.Node{Name: replayName(i), Labels: labels, Taints: nc.Taints, Allocatable: nc.Allocatable,
			Reserved: rc.reserved[i]}
	}
	return out
}

// queue is the pods in kube-scheduler's order for a burst: by creation, then by resourceVersion,
// then name. kube-scheduler's queue is FIFO by the time of each pod's last failed attempt, which
// for a burst follows creation; creation timestamps have a second's resolution, and a burst of
// 50 ReplicaSets creates hundreds of pods a second, interleaved. The resourceVersion (etcd's
// revision of the pod's last write: its create, or kube-scheduler's Unschedulable status after
// its first attempt) orders them within the second; it is opaque by contract, so a version that
// is not a number orders by name instead.
func (rc *replayClaims) queue(byKey map[string]*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(rc.pods))
	for key := range rc.pods {
		if pod := byKey[key]; pod != nil {
			out = append(out, pod)
		}
	}
	slices.SortFunc(out, func(a, b *corev1.Pod) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), compareVersions(a.ResourceVersion, b.ResourceVersion),
			cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// compareVersions orders two resourceVersions as numbers (kube-apiserver's are, though documented
// as opaque); one that is not a number sorts after every number, and two such by their text. A
// total order: calling a non-number equal to every version made the comparison cyclic (9 < 10,
// but both "equal" to "x", so the names decided against the numbers) and the replay's queue
// depend on the map it was collected from.
func compareVersions(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// assign makes each claim's Pods the replay's placement on it (orphans are on none).
func (rc *replayClaims) assign(res *schedreplay.Result) {
	on := make(map[string][]string, len(rc.planned))
	for key, node := range res.Placed {
		on[node] = append(on[node], key)
	}
	for i := range rc.planned {
		pods := on[replayName(i)]
		slices.Sort(pods)
		rc.planned[i].Pods = pods
	}
}

// nonEmpty are the claims the replay put pods on (an empty one would only be consolidated away).
func (rc *replayClaims) nonEmpty() []provisioner.NodeClaim {
	return slices.DeleteFunc(slices.Clone(rc.planned), func(nc provisioner.NodeClaim) bool { return len(nc.Pods) == 0 })
}

// orphanInput asks the provisioner for room for the orphans alone: the batch's claims become
// in-flight claims holding the replay's pods, and the plan's placements on existing nodes and
// in-flight claims count as taken.
func orphanInput(in provisioner.Input, plan *provisioner.Plan, rc *replayClaims, orphans []*corev1.Pod, byKey map[string]*corev1.Pod) provisioner.Input {
	out := in
	out.Pods = orphans
	onExisting := placements(plan.ExistingNodes, byKey)
	out.Nodes = slices.Clone(in.Nodes)
	for i := range out.Nodes {
		if extra := onExisting[out.Nodes[i].Node.Name]; len(extra) > 0 {
			out.Nodes[i].Pods = append(slices.Clone(out.Nodes[i].Pods), extra...)
		}
	}
	onInFlight := placements(plan.InFlightClaims, byKey)
	out.InFlight = slices.Clone(in.InFlight)
	for i := range out.InFlight {
		if extra := onInFlight[out.InFlight[i].Name]; len(extra) > 0 {
			out.InFlight[i].Pods = append(slices.Clone(out.InFlight[i].Pods), extra...)
		}
	}
	for i, nc := range rc.planned {
		pods := make([]*corev1.Pod, 0, len(nc.Pods))
		for _, key := range nc.Pods {
			pods = append(pods, byKey[key])
		}
		out.InFlight = append(out.InFlight, provisioner.InFlightClaim{Name: replayName(i), NodePool: nc.NodePool,
			InstanceType: nc.InstanceType, Zone: nc.Zone, CapacityType: nc.CapacityType, Labels: nc.Labels, Pods: pods})
	}
	return out
}

func placements(ps []provisioner.NodePlacement, byKey map[string]*corev1.Pod) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, p := range ps {
		for _, key := range p.Pods {
			if pod := byKey[key]; pod != nil {
				out[p.Name] = append(out[p.Name], pod)
			}
		}
	}
	return out
}
