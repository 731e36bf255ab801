package provisioner

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// daemon is a DaemonSet's pod, compiled: what it takes from every node it runs on.
type daemon struct {
	ds    *appsv1.DaemonSet
	name  string // namespace/name
	req   resVec
	ports []hostPort
	tols  []corev1.Toleration
	alts  []*reqSet // node selector ∧ each required affinity term (ORed)
}

// dsGroup is the set of daemons that run on an instance type of a pool, and their total.
type dsGroup struct {
	members  []int
	overhead resVec
	ports    []hostPort
}

func (e *engine) compileDaemons() error {
	list := slices.Clone(e.in.DaemonSets)
	slices.SortStableFunc(list, func(a, b *appsv1.DaemonSet) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for i, ds := range list {
		if ds == nil {
			return inputErr(fmt.Sprintf("DaemonSet #%d", i), "", "is nil")
		}
		d := &daemon{ds: ds, name: ds.Namespace + "/" + ds.Name}
		spec := &ds.Spec.Template.Spec
		d.req = e.rt.fromMap(podRequests(&corev1.Pod{Spec: *spec}))
		d.ports = podHostPorts(spec)
		d.tols = append(slices.Clone(spec.Tolerations), daemonTolerations...)
		alts, err := e.nodeAlternatives(spec, "DaemonSet "+d.name, "spec.template.spec")
		if err != nil {
			return err
		}
		for _, alt := range alts {
			d.alts = append(d.alts, e.sets.intern(withoutLifecycleLabels(alt)))
		}
		e.daemons = append(e.daemons, d)
	}
	return nil
}

// withoutLifecycleLabels drops requirements on karpenter.sh/registered and /initialized that a
// ready node meets: daemons selecting them run on every node Karpenter makes.
func withoutLifecycleLabels(rs requirements.Requirements) requirements.Requirements {
	out := rs.Clone()
	for _, k := range []string{api.LabelNodeRegistered, api.LabelNodeInitialized} {
		if r, ok := out[k]; ok && r.Has("true") {
			delete(out, k)
		}
	}
	return out
}

// runsOnType reports whether daemon d runs on instance type t of pool p.
func (e *engine) runsOnType(d *daemon, p *pool, t int) bool {
	if untolerated(d.tols, p.taints, true) != nil {
		return false
	}
	for _, alt := range d.alts {
		c := p.compat(alt)
		if c.ok && p.typeIn(c.mask, t) {
			return true
		}
	}
	return false
}

// runsOnNode reports whether daemon d runs on a node with these labels and taints.
func runsOnNode(d *daemon, labels map[string]string, taints []corev1.Taint) bool {
	if untolerated(d.tols, taints, true) != nil {
		return false
	}
	for _, alt := range d.alts {
		if alt.matchesLabels(labels) {
			return true
		}
	}
	return false
}

// applyDaemonOverhead groups each pool's instance types by the daemons that would run on them and
// subtracts each group's requests from the types' allocatable.
func (e *engine) applyDaemonOverhead() {
	if len(e.daemons) == 0 {
		return
	}
	for _, p := range e.pools {
		groups := map[string]*dsGroup{}
		for t, pt := range p.types {
			var members []int
			var key strings.Builder
			for di, d := range e.daemons {
				if e.runsOnType(d, p, t) {
					members = append(members, di)
					fmt.Fprintf(&key, "%d,", di)
				}
			}
			g, ok := groups[key.String()]
			if !ok {
				g = e.newDSGroup(members)
				groups[key.String()] = g
			}
			pt.ds = g
			pt.alloc = pt.rawAlloc.subFloor(g.overhead)
		}
	}
}

func (e *engine) newDSGroup(members []int) *dsGroup {
	g := &dsGroup{members: members, overhead: e.rt.zero()}
	for _, di := range members {
		g.overhead.addScaled(e.daemons[di].req, 1)
		g.ports = append(g.ports, e.daemons[di].ports...)
	}
	return g
}

// pendingDaemons returns the requests and ports of daemons that should run on a node but have no
// pod there yet: the node must keep room for them.
func (e *engine) pendingDaemons(labels map[string]string, taints []corev1.Taint, bound []*corev1.Pod) (resVec, []hostPort) {
	total := e.rt.zero()
	var ports []hostPort
	for _, d := range e.daemons {
		if !runsOnNode(d, labels, taints) || hasDaemonPod(d.ds, bound) {
			continue
		}
		total.addScaled(d.req, 1)
		ports = append(ports, d.ports...)
	}
	return total, ports
}

func hasDaemonPod(ds *appsv1.DaemonSet, pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p == nil || p.Namespace != ds.Namespace {
			continue
		}
		for _, ref := range p.OwnerReferences {
			if ref.Kind == "DaemonSet" && (ref.Name == ds.Name || (ds.UID != "" && ref.UID == ds.UID)) {
				return true
			}
		}
	}
	return false
}
