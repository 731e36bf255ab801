package consolidation

import (
	"cmp"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// unlimited stands for a resource a node does not list: the bound must never under-count room.
const unlimited = 1 << 50

// resources are CPU (millicores), memory (bytes) and pod slots.
type resources [3]int64

func (r resources) plus(o resources) resources {
	return resources{r[0] + o[0], r[1] + o[1], r[2] + o[2]}
}

func (r resources) minus(o resources) resources {
	return resources{r[0] - o[0], r[1] - o[1], r[2] - o[2]}
}

// within reports r ≤ o in every dimension.
func (r resources) within(o resources) bool {
	return r[0] <= o[0] && r[1] <= o[1] && r[2] <= o[2]
}

// floor clamps every dimension at zero.
func (r resources) floor() resources {
	return resources{max(r[0], 0), max(r[1], 0), max(r[2], 0)}
}

// capacityBound is an optimistic summary of where moved pods could go. It can prove that a
// removal cannot work, and so save a simulation, but never that one does: that answer only comes
// from the provisioner. It over-counts room (free = allocatable minus the bound pods' container
// requests, no DaemonSet or init-container or overhead share, no fragmentation) and under-counts
// need (container requests of the moved pods), so a "no" is always right.
type capacityBound struct {
	// free is each node's room in the current simulator.
	free map[string]resources
	// room is the summed free of the nodes that are destinations now.
	room resources
	dest map[string]bool
	// need is each candidate's pods' requests.
	need map[string]resources
	// catalogue is every pool's instance type by cheapest available offering, for the replace test.
	catalogue []typeRoom
}

// typeRoom is one instance type's allocatable and cheapest price.
type typeRoom struct {
	alloc resources
	price float64
}

func newCapacityBound(in *Input, prices *priceBook) *capacityBound {
	b := &capacityBound{need: map[string]resources{}}
	b.setNodes(in)
	seen := map[string]bool{}
	for _, pool := range slices.Sorted(maps.Keys(prices.types)) {
		for _, name := range slices.Sorted(maps.Keys(prices.types[pool])) {
			it := prices.types[pool][name]
			cheapest, ok := it.Offerings.Cheapest()
			if !ok || seen[it.Name] {
				continue
			}
			seen[it.Name] = true
			b.catalogue = append(b.catalogue, typeRoom{alloc: listResources(it.Allocatable(), unlimited), price: cheapest.Price})
		}
	}
	slices.SortFunc(b.catalogue, func(a, c typeRoom) int { return cmp.Compare(a.price, c.price) })
	return b
}

// setNodes recomputes every node's free room from a snapshot.
func (b *capacityBound) setNodes(in *Input) {
	b.free = make(map[string]resources, len(in.Nodes))
	for _, n := range in.Nodes {
		alloc := n.Node.Status.Allocatable
		if len(alloc) == 0 {
			alloc = n.Node.Status.Capacity
		}
		used := resources{}
		for _, pod := range n.Pods {
			if pod != nil && !podTerminal(pod) {
				used = used.plus(podResources(pod))
			}
		}
		b.free[n.Node.Name] = listResources(alloc, unlimited).minus(used).floor()
	}
}

// rebuild follows the pass's simulator onto the snapshot after the commands so far.
func (b *capacityBound) rebuild(after *Input, p *pass) {
	b.setNodes(after)
	b.refresh(p)
}

// refresh recomputes which nodes are destinations and their summed room.
func (b *capacityBound) refresh(p *pass) {
	not := map[string]bool{}
	for _, name := range p.notDestinations() {
		not[name] = true
	}
	b.dest = make(map[string]bool, len(b.free))
	b.room = resources{}
	for name, free := range b.free {
		if p.inSim[name] && !not[name] {
			b.dest[name] = true
			b.room = b.room.plus(free)
		}
	}
}

// needOf is a candidate's pods' requests, computed once.
func (b *capacityBound) needOf(c *candidate) resources {
	if r, ok := b.need[c.name]; ok {
		return r
	}
	r := resources{}
	for _, pod := range c.pods {
		r = r.plus(podResources(pod))
	}
	b.need[c.name] = r
	return r
}

// destFree is the room a candidate offers others while it is a destination.
func (b *capacityBound) destFree(c *candidate) resources {
	if b.dest[c.name] {
		return b.free[c.name]
	}
	return resources{}
}

// mayDelete reports whether the remaining room could hold the pods of nodes.
func (b *capacityBound) mayDelete(nodes []*candidate) bool {
	need, room := resources{}, b.room
	for _, c := range nodes {
		need = need.plus(b.needOf(c))
		room = room.minus(b.destFree(c))
	}
	return need.within(room)
}

// mayReplace reports whether some instance type cheaper than limit could hold what the rest of
// the cluster cannot take of the nodes' pods.
func (b *capacityBound) mayReplace(nodes []*candidate, limit float64) bool {
	need, room := resources{}, b.room
	for _, c := range nodes {
		need = need.plus(b.needOf(c))
		room = room.minus(b.destFree(c))
	}
	residual := need.minus(room).floor()
	for _, t := range b.catalogue {
		if t.price >= limit {
			return false
		}
		if residual.within(t.alloc) {
			return true
		}
	}
	return false
}

// podResources is a lower bound on what a pod takes: its containers' requests and one pod slot.
func podResources(pod *corev1.Pod) resources {
	r := resources{0, 0, 1}
	for _, ct := range pod.Spec.Containers {
		req := listResources(ct.Resources.Requests, 0)
		r[0], r[1] = r[0]+req[0], r[1]+req[1]
	}
	return r
}

// listResources reads CPU, memory and pods from a resource list; absent ones read as missing
// (0 for requests, unlimited for a node's allocatable, so the bound stays optimistic).
func listResources(l corev1.ResourceList, missing int64) resources {
	r := resources{missing, missing, missing}
	for i, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		if q, ok := l[name]; ok {
			if name == corev1.ResourceCPU {
				r[i] = q.MilliValue()
			} else {
				r[i] = q.Value()
			}
		}
	}
	return r
}
