package main

import (
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/provisioner"
)

// poolInputs pairs every NodePool of the manifests with the catalogue of its AKSNodeClass, building
// each node class's catalogue once. `napkit plan` and `napkit consolidate` share it. The catalogues
// are also returned by NodePool name.
func poolInputs(cat *catalogueFlags, set *manifest.Set) ([]provisioner.NodePoolInput, map[string]*catalogue, error) {
	var out []provisioner.NodePoolInput
	built := map[string]*catalogue{}
	byPool := map[string]*catalogue{}
	for _, pool := range set.NodePools {
		nodeClass, err := nodeClassFor(set, pool)
		if err != nil {
			return nil, nil, err
		}
		if built[nodeClass.Name] == nil {
			if built[nodeClass.Name], err = cat.loadFor(nodeClass); err != nil {
				return nil, nil, err
			}
		}
		byPool[pool.Name] = built[nodeClass.Name]
		out = append(out, provisioner.NodePoolInput{NodePool: pool, InstanceTypes: built[nodeClass.Name].InstanceTypes})
	}
	return out, byPool, nil
}
