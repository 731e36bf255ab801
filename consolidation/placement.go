package consolidation

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// checkPlacementLabels refuses a node of a NodePool whose zone label is not a zone of the region (no
// instance type of its pool is offered there) or whose capacity-type label is neither on-demand nor
// spot: its offering would not be found, it would be priced at $0, and every saving computed against
// it would be wrong. Nodes of pools without instance types are left to collect, which skips them.
func checkPlacementLabels(in *Input, pools map[string]*poolInfo) error {
	for i := range in.Nodes {
		n := in.Nodes[i].Node
		p := pools[n.Labels[api.LabelNodePool]]
		if p == nil || len(p.types) == 0 {
			continue
		}
		field := func(key string) string { return fmt.Sprintf("Nodes[%d].Node.metadata.labels[%s]", i, key) }
		if zone := nodeLabel(n.Labels, api.LabelZone); zone != "" && !p.zones.Has(zone) {
			return inputErr(field(api.LabelZone), zone, "node %s: no instance type of NodePool %s is offered in that zone; the region's zones are %s",
				n.Name, p.pool.Name, strings.Join(slices.Sorted(slices.Values(p.zones.UnsortedList())), ", "))
		}
		switch ct := n.Labels[api.LabelCapacityType]; ct {
		case "", api.CapacityTypeOnDemand, api.CapacityTypeSpot:
		default:
			return inputErr(field(api.LabelCapacityType), ct, "node %s: want %s or %s", n.Name, api.CapacityTypeOnDemand, api.CapacityTypeSpot)
		}
	}
	return nil
}

// offeredZones are the zones any of the pool's instance types is offered in, the regional "0"
// included.
func offeredZones(p *poolInfo) sets.Set[string] {
	zones := sets.New(api.RegionalZone)
	for _, it := range p.types {
		for _, o := range it.Offerings {
			zones.Insert(o.Zone)
		}
	}
	return zones
}
