package provisioner

import (
	"fmt"
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
)

// This file is an independent checker of plans: it re-derives every node's contents, capacity,
// labels and taints from the Input and the Plan alone, and checks Kubernetes' rules with its own
// small implementations, sharing nothing with the solver's bookkeeping.

// cNode is a node as the checker sees it.
type cNode struct {
	name        string
	labels      map[string]string
	taints      []corev1.Taint
	allocatable map[corev1.ResourceName]int64
	pods        []*corev1.Pod // pods placed by the plan
	bound       []*corev1.Pod // pods already there
	daemons     []*corev1.Pod
	pool        string
	capacity    corev1.ResourceList
	isNew       bool
}

func (n *cNode) all() []*corev1.Pod {
	out := append([]*corev1.Pod(nil), n.bound...)
	out = append(out, n.daemons...)
	return append(out, n.pods...)
}

// checkPlan returns every violation of a required constraint it finds.
func checkPlan(in Input, plan *Plan) []string {
	ck := &checker{in: in, plan: plan, pods: map[string]*corev1.Pod{}, seen: map[string]int{}}
	ck.indexPods()
	ck.buildNodes()
	ck.checkAccounting()
	for _, n := range ck.nodes {
		ck.checkNode(n)
	}
	ck.checkTopology()
	ck.checkLimits()
	ck.checkCost()
	return ck.errs
}

type checker struct {
	in    Input
	plan  *Plan
	pods  map[string]*corev1.Pod
	seen  map[string]int
	nodes []*cNode
	errs  []string
}

func (ck *checker) errorf(format string, args ...any) {
	if len(ck.errs) < 50 {
		ck.errs = append(ck.errs, fmt.Sprintf(format, args...))
	}
}

func (ck *checker) indexPods() {
	for _, p := range ck.in.Pods {
		ck.pods[p.Namespace+"/"+p.Name] = p
	}
	for _, b := range ck.in.CapacityBuffers {
		for i := range b.Replicas {
			p := &corev1.Pod{ObjectMeta: *b.PodTemplate.ObjectMeta.DeepCopy(), Spec: b.PodTemplate.Spec}
			p.Name = fmt.Sprintf("%s-%d", b.Name, i)
			ck.pods["buffer/"+p.Name] = p
		}
	}
}

func (ck *checker) take(names []string, where string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, k := range names {
		ck.seen[k]++
		p, ok := ck.pods[k]
		if !ok {
			ck.errorf("%s: unknown pod %s", where, k)
			continue
		}
		out = append(out, p)
	}
	return out
}

func (ck *checker) poolInput(name string) *NodePoolInput {
	for i := range ck.in.NodePools {
		if ck.in.NodePools[i].NodePool.Name == name {
			return &ck.in.NodePools[i]
		}
	}
	return nil
}

func findType(types []*instancetype.InstanceType, name string) *instancetype.InstanceType {
	for _, it := range types {
		if it != nil && it.Name == name {
			return it
		}
	}
	return nil
}

func (ck *checker) buildNodes() {
	for _, nc := range ck.plan.NodeClaims {
		ck.buildClaim(nc)
	}
	placed := map[string][]string{}
	for _, np := range ck.plan.ExistingNodes {
		placed[np.Name] = append(np.Pods, np.BufferPods...)
	}
	for _, en := range ck.in.Nodes {
		n := &cNode{name: en.Node.Name, labels: normalizedLabels(en.Node.Labels), allocatable: quantities(en.Node.Status.Allocatable),
			capacity: en.Node.Status.Capacity, pool: en.NodePool}
		if _, ok := n.labels[api.LabelHostname]; !ok {
			n.labels[api.LabelHostname] = en.Node.Name
		}
		if n.pool == "" {
			n.pool = en.Node.Labels[api.LabelNodePool]
		}
		n.taints = en.Node.Spec.Taints
		if !en.Initialized {
			n.taints = nil
			for _, t := range en.Node.Spec.Taints {
				if !api.IsEphemeralTaint(t.Key) && !ck.isStartupTaint(n.pool, t) {
					n.taints = append(n.taints, t)
				}
			}
		}
		n.bound = livePods(en.Pods)
		n.pods = ck.take(placed[n.name], "node "+n.name)
		if len(n.pods) > 0 && (en.Node.Spec.Unschedulable || en.Node.DeletionTimestamp != nil) {
			ck.errorf("node %s is cordoned or deleting but receives pods", n.name)
		}
		n.daemons = ck.pendingDaemonPods(n)
		ck.nodes = append(ck.nodes, n)
	}
	ck.buildInFlight()
}

func (ck *checker) isStartupTaint(pool string, t corev1.Taint) bool {
	if pi := ck.poolInput(pool); pi != nil {
		for _, s := range pi.NodePool.Spec.Template.Spec.StartupTaints {
			if s.Key == t.Key && s.Effect == t.Effect {
				return true
			}
		}
	}
	return false
}

func (ck *checker) buildInFlight() {
	placed := map[string][]string{}
	for _, np := range ck.plan.InFlightClaims {
		placed[np.Name] = append(np.Pods, np.BufferPods...)
	}
	for _, f := range ck.in.InFlight {
		pi := ck.poolInput(f.NodePool)
		it := findType(pi.InstanceTypes, f.InstanceType)
		n := &cNode{name: f.Name, pool: f.NodePool, labels: map[string]string{}, allocatable: quantities(it.Allocatable()),
			capacity: it.Capacity, taints: pi.NodePool.Spec.Template.Spec.Taints}
		for k, v := range it.Requirements.Labels() {
			n.labels[k] = v
		}
		for k, v := range pi.NodePool.Spec.Template.ObjectMeta.Labels {
			n.labels[k] = v
		}
		for k, v := range f.Labels {
			n.labels[k] = v
		}
		n.labels[api.LabelZone], n.labels[api.LabelCapacityType] = f.Zone, f.CapacityType
		n.labels[api.LabelHostname], n.labels[api.LabelNodePool] = f.Name, f.NodePool
		n.bound = livePods(f.Pods)
		n.pods = ck.take(placed[f.Name], "in-flight claim "+f.Name)
		n.daemons = ck.pendingDaemonPods(n)
		ck.nodes = append(ck.nodes, n)
	}
}

func (ck *checker) buildClaim(nc NodeClaim) {
	where := "NodeClaim " + nc.Name
	pi := ck.poolInput(nc.NodePool)
	if pi == nil {
		ck.errorf("%s: unknown NodePool %s", where, nc.NodePool)
		return
	}
	it := findType(pi.InstanceTypes, nc.InstanceType)
	if it == nil {
		ck.errorf("%s: instance type %s not in NodePool %s", where, nc.InstanceType, nc.NodePool)
		return
	}
	n := &cNode{name: nc.Name, pool: nc.NodePool, isNew: true, labels: map[string]string{}, allocatable: quantities(it.Allocatable()),
		capacity: it.Capacity, taints: pi.NodePool.Spec.Template.Spec.Taints}
	for k, v := range nc.Labels {
		n.labels[k] = v
	}
	n.labels[api.LabelHostname] = nc.Name
	ck.checkClaimIdentity(nc, pi, it, n)
	n.pods = ck.take(append(append([]string(nil), nc.Pods...), nc.BufferPods...), where)
	n.daemons = ck.pendingDaemonPods(n)
	ck.nodes = append(ck.nodes, n)
	ck.checkOptions(nc, pi, n)
}

func (ck *checker) checkClaimIdentity(nc NodeClaim, pi *NodePoolInput, it *instancetype.InstanceType, n *cNode) {
	where := "NodeClaim " + nc.Name
	want := map[string]string{api.LabelInstanceType: nc.InstanceType, api.LabelZone: nc.Zone,
		api.LabelCapacityType: nc.CapacityType, api.LabelNodePool: nc.NodePool}
	for k, v := range want {
		if n.labels[k] != v {
			ck.errorf("%s: label %s=%q, want %q", where, k, n.labels[k], v)
		}
	}
	found := false
	for _, o := range it.Offerings {
		if o.Zone == nc.Zone && o.CapacityType == nc.CapacityType && o.Available {
			found = true
			if math.Abs(o.Price-nc.PricePerHour) > 1e-6 {
				ck.errorf("%s: price %g, offering costs %g", where, nc.PricePerHour, o.Price)
			}
		}
	}
	if !found {
		ck.errorf("%s: no available offering %s/%s of %s", where, nc.Zone, nc.CapacityType, nc.InstanceType)
	}
	for k, v := range pi.NodePool.Spec.Template.ObjectMeta.Labels {
		if n.labels[k] != v {
			ck.errorf("%s: NodePool label %s=%s missing", where, k, v)
		}
	}
	for i, r := range pi.NodePool.Spec.Template.Spec.Requirements {
		if !requirementMet(n.labels, corev1.NodeSelectorRequirement{Key: api.NormalizeLabelKey(r.Key), Operator: r.Operator, Values: r.Values}) {
			ck.errorf("%s: NodePool requirement %d (%s %s %v) not met by labels", where, i, r.Key, r.Operator, r.Values)
		}
	}
}

// checkOptions checks the launch list: it holds the chosen type, every option fits the pods, and
// minValues holds on it under the Strict policy.
func (ck *checker) checkOptions(nc NodeClaim, pi *NodePoolInput, n *cNode) {
	where := "NodeClaim " + nc.Name
	if len(nc.InstanceTypeOptions) == 0 || nc.InstanceTypeOptions[0] != nc.InstanceType {
		ck.errorf("%s: options %v do not start with %s", where, head(nc.InstanceTypeOptions), nc.InstanceType)
	}
	need := sumRequests(append(append([]*corev1.Pod(nil), n.pods...), n.daemons...))
	for _, name := range nc.InstanceTypeOptions {
		it := findType(pi.InstanceTypes, name)
		if it == nil || !fitsIn(need, quantities(it.Allocatable())) {
			ck.errorf("%s: option %s does not fit the pods", where, name)
			return
		}
	}
	if nc.MinValuesRelaxed {
		return
	}
	for _, r := range pi.NodePool.Spec.Template.Spec.Requirements {
		if r.MinValues == nil {
			continue
		}
		distinct := map[string]bool{}
		for _, name := range nc.InstanceTypeOptions {
			it := findType(pi.InstanceTypes, name)
			if rr, ok := it.Requirements[api.NormalizeLabelKey(r.Key)]; ok {
				for _, v := range rr.Values() {
					distinct[v] = true
				}
			}
		}
		if len(distinct) < *r.MinValues {
			ck.errorf("%s: minValues %d of %s not met by %d options", where, *r.MinValues, r.Key, len(nc.InstanceTypeOptions))
		}
	}
}

func head(s []string) []string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}

func (ck *checker) checkAccounting() {
	for _, u := range ck.plan.Unschedulable {
		ck.seen[u.Pod]++
		if u.Code == "" || u.Reason == "" {
			ck.errorf("unschedulable %s has no code or reason", u.Pod)
		}
	}
	for k := range ck.pods {
		if ck.seen[k] != 1 {
			ck.errorf("pod %s appears %d times in the plan", k, ck.seen[k])
		}
	}
	for k := range ck.seen {
		if _, ok := ck.pods[k]; !ok {
			ck.errorf("plan lists unknown pod %s", k)
		}
	}
}

// pendingDaemonPods are the daemon pods that would run on n and are not there yet.
func (ck *checker) pendingDaemonPods(n *cNode) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ds := range ck.in.DaemonSets {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: ds.Namespace}, Spec: ds.Spec.Template.Spec}
		p.Spec.Tolerations = append(append([]corev1.Toleration(nil), p.Spec.Tolerations...),
			corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})
		p.Spec.Tolerations = append(p.Spec.Tolerations, daemonTolerations...)
		if !nodeAffinityMet(p, n.labels) || !taintsTolerated(p, n.taints) {
			continue
		}
		owned := false
		for _, b := range n.bound {
			for _, ref := range b.OwnerReferences {
				owned = owned || (ref.Kind == "DaemonSet" && ref.Name == ds.Name && b.Namespace == ds.Namespace)
			}
		}
		if !owned {
			out = append(out, p)
		}
	}
	return out
}

func (ck *checker) checkNode(n *cNode) {
	used := sumRequests(n.all())
	for name, v := range used {
		if v > n.allocatable[name] && v > sumRequests(append(n.bound, n.daemons...))[name] {
			ck.errorf("node %s overcommitted: %s %d > allocatable %d", n.name, name, v, n.allocatable[name])
		}
	}
	ck.checkPorts(n)
	for _, p := range n.pods {
		where := fmt.Sprintf("pod %s/%s on %s", p.Namespace, p.Name, n.name)
		if !nodeAffinityMet(p, n.labels) {
			ck.errorf("%s: node selector or required node affinity not met", where)
		}
		if !taintsTolerated(p, n.taints) {
			ck.errorf("%s: taints %v not tolerated", where, n.taints)
		}
		if !ck.volumesMet(p, n.labels) {
			ck.errorf("%s: bound volume's node affinity not met", where)
		}
	}
}

func (ck *checker) checkPorts(n *cNode) {
	type key struct {
		port  int32
		proto corev1.Protocol
	}
	seen := map[key][]string{}
	for _, p := range n.all() {
		for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
			for _, cp := range c.Ports {
				if cp.HostPort == 0 {
					continue
				}
				proto := cp.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				k := key{cp.HostPort, proto}
				ip := cp.HostIP
				if ip == "" {
					ip = "0.0.0.0"
				}
				for _, other := range seen[k] {
					if other == ip || other == "0.0.0.0" || ip == "0.0.0.0" {
						if containsPod(n.pods, p) {
							ck.errorf("node %s: host port %d/%s clash (pod %s)", n.name, cp.HostPort, proto, p.Name)
						}
					}
				}
				seen[k] = append(seen[k], ip)
			}
		}
	}
}

func containsPod(list []*corev1.Pod, p *corev1.Pod) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

func (ck *checker) volumesMet(p *corev1.Pod, nodeLabels map[string]string) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		for _, pvc := range ck.in.PersistentVolumeClaims {
			if pvc.Namespace != p.Namespace || pvc.Name != v.PersistentVolumeClaim.ClaimName || pvc.Spec.VolumeName == "" {
				continue
			}
			for _, pv := range ck.in.PersistentVolumes {
				if pv.Name != pvc.Spec.VolumeName || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
					continue
				}
				terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
				if len(terms) == 0 {
					continue
				}
				// The Azure Disk CSI driver labels nodes with its own zone key, equal to the
				// standard zone ("" for a regional disk, zone "0").
				withDisk := map[string]string{azureDiskZoneKey: nodeLabels[api.LabelZone]}
				if withDisk[azureDiskZoneKey] == api.RegionalZone {
					withDisk[azureDiskZoneKey] = ""
				}
				for k, v := range nodeLabels {
					withDisk[k] = v
				}
				ok := false
				for _, t := range terms {
					ok = ok || termMet(t, withDisk, true)
				}
				if !ok {
					return false
				}
			}
		}
	}
	return true
}

// pod placement map for topology checks.
type placedPod struct {
	pod  *corev1.Pod
	node *cNode
	mine bool // placed by the plan
}

func (ck *checker) allPlaced() []placedPod {
	var out []placedPod
	for _, n := range ck.nodes {
		for _, p := range n.bound {
			if p.DeletionTimestamp == nil {
				out = append(out, placedPod{pod: p, node: n})
			}
		}
		for _, p := range n.pods {
			out = append(out, placedPod{pod: p, node: n, mine: true})
		}
	}
	return out
}

func (ck *checker) checkTopology() {
	all := ck.allPlaced()
	for _, pp := range all {
		if !pp.mine {
			continue
		}
		ck.checkAntiAffinity(pp, all)
		ck.checkAffinity(pp, all)
		ck.checkHostnameSpread(pp, all)
	}
	for _, pp := range all {
		ck.checkInverseAnti(pp, all)
	}
	ck.checkZoneSpread(all)
}

func termSelector(t *corev1.PodAffinityTerm, owner *corev1.Pod) (labels.Selector, func(ns string) bool) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return labels.Nothing(), func(string) bool { return false }
	}
	nsOK := func(ns string) bool {
		if t.NamespaceSelector != nil && len(t.NamespaceSelector.MatchLabels) == 0 && len(t.NamespaceSelector.MatchExpressions) == 0 {
			return true
		}
		if len(t.Namespaces) == 0 {
			return ns == owner.Namespace
		}
		for _, n := range t.Namespaces {
			if n == ns {
				return true
			}
		}
		return false
	}
	return sel, nsOK
}

func sameDomain(a, b *cNode, key string) bool {
	if key == api.LabelHostname {
		return a == b
	}
	va, oka := a.labels[key]
	vb, okb := b.labels[key]
	return oka && okb && va == vb
}

func (ck *checker) checkAntiAffinity(pp placedPod, all []placedPod) {
	a := pp.pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return
	}
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, nsOK := termSelector(&t, pp.pod)
		key := api.NormalizeLabelKey(t.TopologyKey)
		for _, o := range all {
			if o.pod != pp.pod && nsOK(o.pod.Namespace) && sel.Matches(labels.Set(o.pod.Labels)) && sameDomain(pp.node, o.node, key) {
				ck.errorf("pod %s on %s: anti-affinity on %s violated by %s on %s", pp.pod.Name, pp.node.name, key, o.pod.Name, o.node.name)
			}
		}
	}
}

// checkInverseAnti: a placed pod must not sit in a domain of a pod whose required anti-affinity
// selects it.
func (ck *checker) checkInverseAnti(owner placedPod, all []placedPod) {
	a := owner.pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return
	}
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, nsOK := termSelector(&t, owner.pod)
		key := api.NormalizeLabelKey(t.TopologyKey)
		for _, o := range all {
			if o.mine && o.pod != owner.pod && nsOK(o.pod.Namespace) && sel.Matches(labels.Set(o.pod.Labels)) && sameDomain(owner.node, o.node, key) {
				ck.errorf("pod %s on %s sits in the anti-affinity domain (%s) of %s", o.pod.Name, o.node.name, key, owner.pod.Name)
			}
		}
	}
}

func (ck *checker) checkAffinity(pp placedPod, all []placedPod) {
	a := pp.pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return
	}
	for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, nsOK := termSelector(&t, pp.pod)
		key := api.NormalizeLabelKey(t.TopologyKey)
		ok, matchesElsewhere := false, false
		for _, o := range all {
			if o.pod == pp.pod || !nsOK(o.pod.Namespace) || !sel.Matches(labels.Set(o.pod.Labels)) {
				continue
			}
			if sameDomain(pp.node, o.node, key) {
				ok = true
			} else if !o.mine {
				matchesElsewhere = true
			}
		}
		self := nsOK(pp.pod.Namespace) && sel.Matches(labels.Set(pp.pod.Labels))
		if !ok && !(self && !matchesElsewhere) {
			ck.errorf("pod %s on %s: affinity on %s has no matching pod in its domain", pp.pod.Name, pp.node.name, key)
		}
	}
}

// checkHostnameSpread: with the hostname minimum at 0, a node may hold at most maxSkew pods a
// DoNotSchedule hostname spread selects, when only its owners match (others may arrive later).
func (ck *checker) checkHostnameSpread(pp placedPod, all []placedPod) {
	for _, c := range pp.pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule || api.NormalizeLabelKey(c.TopologyKey) != api.LabelHostname {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			continue
		}
		count, pure := 0, true
		for _, o := range all {
			if o.node == pp.node && o.pod.Namespace == pp.pod.Namespace && sel.Matches(labels.Set(o.pod.Labels)) {
				count++
				pure = pure && hasSpread(o.pod, c)
			}
		}
		if pure && count > int(c.MaxSkew) {
			ck.errorf("node %s holds %d pods of a hostname spread with maxSkew %d", pp.node.name, count, c.MaxSkew)
		}
	}
}

func hasSpread(p *corev1.Pod, c corev1.TopologySpreadConstraint) bool {
	for _, x := range p.Spec.TopologySpreadConstraints {
		if x.TopologyKey == c.TopologyKey && x.MaxSkew == c.MaxSkew && fmt.Sprint(x.LabelSelector) == fmt.Sprint(c.LabelSelector) {
			return true
		}
	}
	return false
}

// checkZoneSpread checks zone-like DoNotSchedule spreads whose matching pods all own the same
// constraint: every domain that received a pod may exceed the minimum over domains with nodes by
// at most maxSkew.
func (ck *checker) checkZoneSpread(all []placedPod) {
	for _, pp := range all {
		if !pp.mine {
			continue
		}
		for _, c := range pp.pod.Spec.TopologySpreadConstraints {
			key := api.NormalizeLabelKey(c.TopologyKey)
			if c.WhenUnsatisfiable != corev1.DoNotSchedule || key == api.LabelHostname || c.MinDomains != nil {
				continue
			}
			ck.checkOneZoneSpread(pp, c, key, all)
		}
	}
}

func (ck *checker) checkOneZoneSpread(pp placedPod, c corev1.TopologySpreadConstraint, key string, all []placedPod) {
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil {
		return
	}
	counts := map[string]int{}
	for _, n := range ck.nodes {
		if v, ok := n.labels[key]; ok && nodeAffinityMet(pp.pod, n.labels) {
			counts[v] += 0
		}
	}
	for _, o := range all {
		if o.pod.Namespace != pp.pod.Namespace || !sel.Matches(labels.Set(o.pod.Labels)) {
			continue
		}
		if !hasSpread(o.pod, c) {
			return
		}
		if v, ok := o.node.labels[key]; ok && nodeAffinityMet(pp.pod, o.node.labels) {
			counts[v]++
		}
	}
	lo := math.MaxInt
	for _, n := range counts {
		lo = min(lo, n)
	}
	if d := pp.node.labels[key]; counts[d]-lo > int(c.MaxSkew) {
		ck.errorf("spread on %s: domain %s has %d pods, minimum %d, maxSkew %d (%v)", key, d, counts[d], lo, c.MaxSkew, counts)
	}
}

func (ck *checker) checkLimits() {
	for _, pi := range ck.in.NodePools {
		np := pi.NodePool
		if len(np.Spec.Limits) == 0 {
			continue
		}
		total := map[corev1.ResourceName]int64{}
		fresh := false
		for _, n := range ck.nodes {
			if n.pool != np.Name {
				continue
			}
			fresh = fresh || n.isNew
			for name, q := range quantities(n.capacity) {
				total[name] += q
			}
			total[resourceNodes]++
		}
		if !fresh {
			continue
		}
		for name, q := range np.Spec.Limits {
			if total[name] > quantityValue(name, q) {
				ck.errorf("NodePool %s: %s %d exceeds limit %s", np.Name, name, total[name], q.String())
			}
		}
	}
}

func (ck *checker) checkCost() {
	var sum float64
	for _, nc := range ck.plan.NodeClaims {
		sum += nc.PricePerHour
	}
	if math.Abs(sum-ck.plan.Cost.PricePerHour) > 1e-6 {
		ck.errorf("cost %g, claims sum to %g", ck.plan.Cost.PricePerHour, sum)
	}
	if ck.plan.Cost.LowerBoundPerHour > ck.plan.Cost.PricePerHour+1e-6 {
		ck.errorf("lower bound %g exceeds price %g", ck.plan.Cost.LowerBoundPerHour, ck.plan.Cost.PricePerHour)
	}
}

// --- small independent Kubernetes semantics ---

func quantities(list corev1.ResourceList) map[corev1.ResourceName]int64 {
	out := map[corev1.ResourceName]int64{}
	for n, q := range list {
		if n == corev1.ResourceCPU {
			out[n] = q.MilliValue()
		} else {
			out[n] = q.Value()
		}
	}
	return out
}

// sumRequests adds up pod requests: containers (and sidecars) summed, the largest init step,
// pod-level requests, overhead, one pod slot each.
func sumRequests(pods []*corev1.Pod) map[corev1.ResourceName]int64 {
	total := map[corev1.ResourceName]int64{}
	for _, p := range pods {
		for n, v := range oneRequest(p) {
			total[n] += v
		}
	}
	return total
}

func oneRequest(p *corev1.Pod) map[corev1.ResourceName]int64 {
	req := func(r corev1.ResourceRequirements) map[corev1.ResourceName]int64 {
		m := quantities(r.Limits)
		for n, v := range quantities(r.Requests) {
			m[n] = v
		}
		return m
	}
	apps := map[corev1.ResourceName]int64{}
	for _, c := range p.Spec.Containers {
		for n, v := range req(c.Resources) {
			apps[n] += v
		}
	}
	side := map[corev1.ResourceName]int64{}
	peak := map[corev1.ResourceName]int64{}
	for _, c := range p.Spec.InitContainers {
		r := req(c.Resources)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			for n, v := range r {
				apps[n] += v
				side[n] += v
			}
			for n, v := range side {
				peak[n] = max(peak[n], v)
			}
			continue
		}
		for n := range side {
			r[n] += side[n]
		}
		for n, v := range r {
			peak[n] = max(peak[n], v)
		}
	}
	for n, v := range peak {
		apps[n] = max(apps[n], v)
	}
	if p.Spec.Resources != nil {
		for n, v := range req(*p.Spec.Resources) {
			apps[n] = v
		}
	}
	for n, v := range quantities(p.Spec.Overhead) {
		apps[n] += v
	}
	apps[corev1.ResourcePods]++
	return apps
}

func fitsIn(need, alloc map[corev1.ResourceName]int64) bool {
	for n, v := range need {
		if v > alloc[n] {
			return false
		}
	}
	return true
}

func requirementMet(lbls map[string]string, r corev1.NodeSelectorRequirement) bool {
	v, ok := lbls[api.NormalizeLabelKey(r.Key)]
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return ok && contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, "Gte", "Lte":
		if !ok || len(r.Values) != 1 {
			return false
		}
		a, err1 := strconv.ParseInt(v, 10, 64)
		b, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		switch r.Operator {
		case corev1.NodeSelectorOpGt:
			return a > b
		case corev1.NodeSelectorOpLt:
			return a < b
		case "Gte":
			return a >= b
		}
		return a <= b
	}
	return false
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func termMet(t corev1.NodeSelectorTerm, lbls map[string]string, emptyOK bool) bool {
	if len(t.MatchExpressions) == 0 {
		return emptyOK
	}
	for _, r := range t.MatchExpressions {
		if !requirementMet(lbls, r) {
			return false
		}
	}
	return true
}

func nodeAffinityMet(p *corev1.Pod, lbls map[string]string) bool {
	for k, v := range p.Spec.NodeSelector {
		if lbls[api.NormalizeLabelKey(k)] != v {
			return false
		}
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if termMet(t, lbls, false) {
			return true
		}
	}
	return false
}

func taintsTolerated(p *corev1.Pod, taints []corev1.Taint) bool {
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for _, tol := range p.Spec.Tolerations {
			if (tol.Key == "" || tol.Key == t.Key) && (tol.Effect == "" || tol.Effect == t.Effect) &&
				(tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
