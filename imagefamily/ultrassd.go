package imagefamily

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// UltraSSDRequested reports whether a NodeClaim asks for the Ultra SSD capability: only when its
// requirements admit karpenter.azure.com/sku-storage-ultra-ssd=true and rule out false. A claim that
// does not say, or allows both, gets no Ultra SSD (the capability costs money whether used or not).
func UltraSSDRequested(claim []api.NodeSelectorRequirementWithMinValues) bool {
	reqs := requirements.FromAPI(claim)
	allows := func(v string) bool {
		return reqs.IsCompatible(requirements.FromLabels(map[string]string{api.LabelSKUUltraSSD: v}), nil)
	}
	return allows("true") && !allows("false")
}
