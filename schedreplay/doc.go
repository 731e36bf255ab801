// Package schedreplay predicts where kube-scheduler will put a burst of pending pods on a set of
// nodes, and which pods it will leave without a node ("orphans"), so that a provisioner can plan
// nodes for those pods in the same batch instead of finding them seconds later.
//
// Why: a provisioner packs a batch's pods tightly onto new nodes, but it does not bind them;
// kube-scheduler does, with its own rules. Its default profile scores nodes by LeastAllocated
// (the emptiest node first) and spreads a workload's replicas, so it places the burst
// differently from the packing, and the pods it places last (large shapes, pods that need a node
// without a sibling) may find no hole big enough: the napkit controller measured 15-27 such
// late NodeClaims after a 1,000-pod batch of 52 (docs/benchmarks.md, issue 18).
//
// [Replay] is a pure function: pods in queue order (kube-scheduler's queue is FIFO among pods
// of equal priority), each placed on the best-scoring node that passes the filters, then the pods
// that found none tried once more against the final state (kube-scheduler retries unschedulable
// pods when nodes or pods change). What it models of the default profile, with the upstream
// files (k8s.io/kubernetes v1.37, pkg/scheduler/framework/plugins/...):
//
//   - Filters: NodeResourcesFit (every requested resource and the pod count,
//     noderesources/fit.go), TaintToleration (NoSchedule and NoExecute taints), NodeAffinity
//     (nodeSelector and required node affinity), InterPodAffinity (required affinity and
//     anti-affinity, including the placed pods' anti-affinity against the incoming pod;
//     interpodaffinity/filtering.go) and PodTopologySpread's DoNotSchedule constraints
//     (podtopologyspread/filtering.go: skew = domain count + self match - the eligible domains'
//     minimum).
//   - Scores (weights of apis/config/v1/default_plugins.go): NodeResourcesFit's LeastAllocated,
//     weight 1 (noderesources/least_allocated.go: (allocatable - requested) * 100 / allocatable,
//     mean of cpu and memory, with the non-zero defaults of 100m cpu and 200 MiB for pods that
//     request none); NodeResourcesBalancedAllocation, weight 1 (noderesources/
//     balanced_allocation.go: 50 + (50 + score with the pod - score without) / 2, score = (1 -
//     |cpu fraction - memory fraction| / 2) * 100); PodTopologySpread's soft constraints, weight 2
//     (podtopologyspread/scoring.go: count * log(domains + 2) + maxSkew - 1 per constraint,
//     normalized to 100 * (max + min - score) / max), with the system defaults (hostname maxSkew 3,
//     zone maxSkew 5) for a pod that has a controller and no constraints of its own.
//
// Nominated pods (Node.Nominated: status.nominatedNodeName, as kube-scheduler v1.37 treats it,
// nominate.go): their requests and required anti-affinity, and their number in the incoming
// pod's DoNotSchedule spreads, count on their node for every pod of no higher priority until
// they are placed, and each goes to its node first when its turn comes.
// [NominationsFor] uses that to pick the few pods worth nominating: the ones the replays strand,
// nominated to the node a plan chose, round after round until no replay strands a pod.
//
// Left out, so the prediction is an estimate: preferred node and pod affinities and
// PreferNoSchedule taints (the pods of a burst usually have none, and equal scores do not move
// the choice), ImageLocality (new nodes hold no images), namespaceSelector and matchLabelKeys,
// percentageOfNodesToScore (above 100 nodes kube-scheduler scores only part of the feasible
// nodes), the order in which nodes appear (Replay sees them all from the start), and nominated
// pods' required affinities (the pass that counts them can only admit more, and the pass
// without them decides). kube-scheduler picks at random among equal best scores and its
// queue follows creation only roughly: Replay takes the first node of a tie and the caller's
// order, [ReplayWith] draws ties and jitters the queue (Options), so a caller can look at several
// outcomes.
package schedreplay
