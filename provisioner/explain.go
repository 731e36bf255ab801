package provisioner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// reason is an explanation: a code and a message naming the constraint, the NodePool and the
// nearest miss.
type reason struct {
	code Code
	msg  string
}

// explain says why class c's remaining pods have no place. Every pool is checked in the order a pod
// meets the checks (taints, requirements, volumes, resources, host ports, offerings, limits,
// minValues, topology); the pool where the pod got furthest gives the main reason, the others are
// summarised after it, and so are the existing nodes.
func (e *engine) explain(c *podClass) reason {
	if c.pre != "" {
		return reason{c.pre, c.preMsg}
	}
	vi := len(e.view(c).variants) - 1
	var reasons []reason
	for _, p := range e.pools {
		reasons = append(reasons, e.explainPool(c, vi, p))
	}
	slices.SortStableFunc(reasons, func(a, b reason) int { return b.code.stage() - a.code.stage() })
	nodes := e.explainNodes(c, vi)
	if len(reasons) == 0 {
		if nodes == "" {
			return reason{CodeNoNodePool, "no NodePool was given and there are no existing nodes"}
		}
		return reason{CodeNoNodePool, "no NodePool was given; existing nodes: " + nodes}
	}
	msg := reasons[0].msg
	for _, r := range reasons[1:] {
		msg += "; " + r.msg
	}
	if nodes != "" {
		msg += "; existing nodes: " + nodes
	}
	return reason{reasons[0].code, msg}
}

func (e *engine) explainPool(c *podClass, vi int, p *pool) reason {
	v := e.view(c).variants[vi]
	if t := untolerated(c.tols, p.taints, v.tolPNS); t != nil {
		return reason{CodeTaint, fmt.Sprintf("taint %s of NodePool %s not tolerated", taintString(t), p.name)}
	}
	comp := p.compat(v.reqset)
	if !comp.ok {
		return e.explainRequirements(c, v, p, comp)
	}
	fit := e.typesFitting(p, comp.mask, c.req)
	if len(fit) == 0 {
		// Types big enough may exist with every offering unavailable (out of capacity, or no quota
		// left): say so, rather than that no type is big enough.
		if r, ok := e.explainUnavailable(c, v, p); ok {
			return r
		}
		return e.explainResources(c, p, comp.mask)
	}
	fit = slices.DeleteFunc(fit, func(t int) bool { return dsPortClash(p.types[t], c.ports) })
	if len(fit) == 0 {
		return reason{CodeHostPort, fmt.Sprintf("host port %s clashes with %s on every instance type of NodePool %s that fits",
			c.ports[0], e.clashingDaemon(c.ports), p.name)}
	}
	if r, ok := e.explainLimits(p, fit); !ok {
		return r
	}
	if len(p.minValues) > 0 && e.opts.MinValuesPolicy == MinValuesStrict && !e.minValuesMet(p, comp.mask, c.req, c.ports) {
		return reason{CodeMinValues, fmt.Sprintf("NodePool %s: the instance types that fit the pod cannot keep the minValues of %s within %d launch options",
			p.name, minValuesKeys(p), e.opts.MaxInstanceTypes)}
	}
	return e.explainTopology(c, vi, p)
}

// clashingDaemon names the first DaemonSet binding one of the ports.
func (e *engine) clashingDaemon(ports []hostPort) string {
	for _, d := range e.daemons {
		if _, clash := portClash(ports, d.ports); clash {
			return "DaemonSet " + d.name
		}
	}
	return "a DaemonSet"
}

func minValuesKeys(p *pool) string {
	parts := make([]string, len(p.minValues))
	for i, kr := range p.minValues {
		parts[i] = fmt.Sprintf("%s (%d)", kr.key, *kr.r.MinValues)
	}
	return strings.Join(parts, ", ")
}

func (e *engine) typesFitting(p *pool, mask bitset, req resVec) []int {
	var out []int
	for t, pt := range p.types {
		if p.typeIn(mask, t) && req.fits(pt.alloc) {
			out = append(out, t)
		}
	}
	return out
}

func (e *engine) explainRequirements(c *podClass, v *variant, p *pool, comp *poolCompat) reason {
	if len(p.types) == 0 {
		return reason{CodeNoOffering, fmt.Sprintf("NodePool %s has no instance type with an available offering that meets its requirements", p.name)}
	}
	if comp.miss != nil {
		return reason{CodeRequirements, fmt.Sprintf("requirement %s: %s", comp.miss.r, comp.missWhy)}
	}
	if len(c.terms.volume) > 0 {
		noVol := e.sets.intern(merged(c.terms.alts[v.alt]))
		if p.compat(noVol).ok {
			return reason{CodeVolumeTopology, fmt.Sprintf("bound volumes require %s, which NodePool %s cannot launch in", c.terms.volume, p.name)}
		}
	}
	for _, kr := range v.reqset.reqs {
		if p.defined[kr.key] && !p.allowed(kr.key, kr.r).any() {
			return reason{CodeRequirements, fmt.Sprintf("requirement %s matches no instance type of NodePool %s (it offers %s)",
				kr.r, p.name, listValues(p.pairKey(kr.key).values))}
		}
	}
	if r, ok := e.explainUnavailable(c, v, p); ok {
		return r
	}
	return reason{CodeRequirements, fmt.Sprintf("requirements %s together match no instance type of NodePool %s", v.reqset, p.name)}
}

// explainUnavailable reports when the pod's requirements would be met by offerings that exist but
// are unavailable.
func (e *engine) explainUnavailable(c *podClass, v *variant, p *pool) (reason, bool) {
	for _, it := range e.poolTypes[p.name] {
		if it == nil || !c.req.fits(e.rt.fromList(it.Allocatable())) {
			continue
		}
		for i := range it.Offerings {
			o := &it.Offerings[i]
			if o.Available {
				continue
			}
			if offeringMeets(it, o, poolAndPodReqs(p, v.reqset)) {
				why := "unavailable"
				if o.UnavailableReason != "" {
					why += ": " + o.UnavailableReason
				}
				return reason{CodeNoOffering, fmt.Sprintf("NodePool %s: instance types that fit the pod (e.g. %s) have no available offering it allows (%s %s is %s)",
					p.name, it.Name, o.Zone, o.CapacityType, why)}, true
			}
		}
	}
	return reason{}, false
}

func poolAndPodReqs(p *pool, rs *reqSet) []keyReq {
	var out []keyReq
	for _, k := range p.reqs.Keys() {
		if p.defined[k] {
			out = append(out, keyReq{key: k, r: p.reqs[k]})
		}
	}
	for _, kr := range rs.reqs {
		if p.defined[kr.key] {
			out = append(out, kr)
		}
	}
	return out
}

func listValues(vs []string) string {
	if len(vs) == 0 {
		return "no value"
	}
	if len(vs) > 6 {
		return strings.Join(vs[:6], ", ") + fmt.Sprintf(" and %d more", len(vs)-6)
	}
	return strings.Join(vs, ", ")
}

// explainResources names the resource no allowed type has enough of, with the largest amount any
// allowed type offers (after DaemonSet overhead).
func (e *engine) explainResources(c *podClass, p *pool, mask bitset) reason {
	maxAlloc, maxRaw := e.rt.zero(), e.rt.zero()
	for t, pt := range p.types {
		if !p.typeIn(mask, t) {
			continue
		}
		for r := range maxAlloc {
			maxAlloc[r] = max(maxAlloc[r], pt.alloc[r])
			maxRaw[r] = max(maxRaw[r], pt.rawAlloc[r])
		}
	}
	for r, need := range c.req {
		if need <= maxAlloc[r] {
			continue
		}
		name := e.rt.names[r]
		msg := fmt.Sprintf("needs %s %s; largest instance type allowed by NodePool %s has %s allocatable",
			formatQty(name, need), resourceLabel(name), p.name, formatQty(name, maxAlloc[r]))
		if maxAlloc[r] == 0 {
			msg = fmt.Sprintf("needs %s %s; no instance type allowed by NodePool %s has any", formatQty(name, need), resourceLabel(name), p.name)
		} else if need <= maxRaw[r] {
			msg += " after DaemonSet overhead"
		}
		return reason{CodeResources, msg}
	}
	return reason{CodeResources, fmt.Sprintf("needs %s together; no instance type allowed by NodePool %s has room for all of it",
		e.describeRequests(c.req), p.name)}
}

func (e *engine) describeRequests(v resVec) string {
	var parts []string
	for r, n := range v {
		if n > 0 && e.rt.names[r] != corev1.ResourcePods {
			parts = append(parts, formatQty(e.rt.names[r], n)+" "+resourceLabel(e.rt.names[r]))
		}
	}
	return strings.Join(parts, ", ")
}

func resourceLabel(name corev1.ResourceName) string {
	switch name {
	case corev1.ResourceCPU:
		return "CPU"
	case corev1.ResourcePods:
		return "pod slots"
	}
	return string(name)
}

// formatQty renders a resource amount for people, as kubectl shows requests and capacity: CPU in
// whole cores ("1000", not resource.Quantity's "1k") or millicores ("1500m"); memory and ephemeral
// storage with the largest binary suffix that is exact ("16Gi", "512Mi"), else rounded to whole Mi
// ("15155Mi" for 15,891,378,995 bytes, not the raw bytes); other resources as plain counts.
func formatQty(name corev1.ResourceName, v int64) string {
	switch name {
	case corev1.ResourceCPU:
		if v%1000 == 0 {
			return strconv.FormatInt(v/1000, 10)
		}
		return strconv.FormatInt(v, 10) + "m"
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return formatBytes(v)
	}
	return strconv.FormatInt(v, 10)
}

// formatBytes is formatQty for byte amounts: a whole number of Mi (rounded) prints with
// resource.Quantity's exact binary suffix; below 1Mi the exact amount does.
func formatBytes(v int64) string {
	const mi = 1 << 20
	if v >= mi {
		v = (v + mi/2) / mi * mi
	}
	return resource.NewQuantity(v, resource.BinarySI).String()
}

// explainLimits reports the limit that blocks the cheapest type that fits, when every one is
// blocked.
func (e *engine) explainLimits(p *pool, fit []int) (reason, bool) {
	for _, t := range fit {
		if e.withinLimits(p, p.types[t].limitCap, nil) {
			return reason{}, true
		}
	}
	pt := p.types[fit[0]]
	for i, l := range p.limits {
		if e.poolUsed[p.idx][i]+pt.limitCap[i] > l.limit {
			return reason{CodeLimits, fmt.Sprintf("NodePool %s %s limit %s reached (%s in use; the cheapest instance type that fits, %s, adds %s)",
				p.name, l.name, formatQty(l.name, l.limit), formatQty(l.name, e.poolUsed[p.idx][i]), pt.name, formatQty(l.name, pt.limitCap[i]))}, false
		}
	}
	return reason{CodeLimits, fmt.Sprintf("NodePool %s limits reached", p.name)}, false
}

// explainTopology runs the placement check on a fresh NodeClaim and explains the topology term
// that refused it.
func (e *engine) explainTopology(c *podClass, vi int, p *pool) reason {
	e.lastGroup = -1
	pl := e.check(e.freshBin(p), c, vi, 1)
	if pl.n > 0 {
		return reason{CodeTopologySpread, fmt.Sprintf("NodePool %s could now take the pod on a new node, but when the pod's turn came its topology constraints left no valid place", p.name)}
	}
	if e.lastGroup < 0 {
		return reason{pl.code, fmt.Sprintf("NodePool %s: %s", p.name, codeText(pl.code))}
	}
	g := e.groups[e.lastGroup]
	switch {
	case g.kind == kindSpread:
		return reason{CodeTopologySpread, fmt.Sprintf("%s would exceed maxSkew in every domain NodePool %s can reach (counts: %s)", g.desc, p.name, e.domainCounts(g))}
	case g.kind == kindAffinity:
		return reason{CodePodAffinity, fmt.Sprintf("required %s: no matching pod runs in a domain NodePool %s can reach", g.desc, p.name)}
	case slices.Contains(e.view(c).inverse, e.lastGroup) && !slices.Contains(c.terms.required, e.lastGroup):
		return reason{CodePodAntiAffinity, fmt.Sprintf("pods with required %s exclude it from every domain NodePool %s can reach", g.desc, p.name)}
	}
	return reason{CodePodAntiAffinity, fmt.Sprintf("required %s: every domain NodePool %s can reach holds a matching pod (or may, once its node's zone is chosen)", g.desc, p.name)}
}

func codeText(c Code) string {
	switch c {
	case CodeResources:
		return "no instance type has room"
	case CodeLimits:
		return "limits reached"
	case CodeHostPort:
		return "host port clash"
	case CodeMinValues:
		return "minValues cannot be kept"
	}
	return string(c)
}

func (e *engine) domainCounts(g *group) string {
	if g.hostname {
		return "per node"
	}
	elig := e.eligibleDomains(g)
	tab := e.domTab(g.key)
	var parts []string
	for d, ok := range elig {
		if ok {
			parts = append(parts, fmt.Sprintf("%s=%d", tab.names[d], e.gc(g).match[d]))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// explainNodes summarises why the existing nodes and in-flight claims refused the pod.
func (e *engine) explainNodes(c *podClass, vi int) string {
	counts := map[Code]int{}
	total := 0
	for _, b := range e.bins {
		if b.kind == binNew || b.dead || total >= 5000 {
			continue
		}
		total++
		pl := e.check(b, c, vi, 1)
		code := pl.code
		if pl.n > 0 {
			code = "room left but not chosen"
		}
		counts[code]++
	}
	if total == 0 {
		return ""
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[Code(k)], k)
	}
	return fmt.Sprintf("%d checked (%s)", total, strings.Join(parts, ", "))
}
