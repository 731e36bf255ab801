package requirements_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/requirements"
)

// A NodePool asks for D-family amd64 SKUs with more than 4 vCPUs; the scheduler checks each instance
// type against it. GPU labels are well known, so an instance type without them is still considered.
func ExampleRequirements_Compatible() {
	pool := requirements.FromAPI([]api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelSKUFamily, Operator: corev1.NodeSelectorOpIn, Values: []string{"D"}},
		{Key: "beta.kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
		{Key: api.LabelSKUCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}},
		{Key: api.LabelSKUGPUName, Operator: corev1.NodeSelectorOpDoesNotExist},
	})
	for _, cpu := range []string{"2", "8"} {
		sku := requirements.FromLabels(map[string]string{
			api.LabelSKUFamily: "D",
			api.LabelArch:      "amd64",
			api.LabelSKUCPU:    cpu,
		})
		err := sku.Compatible(pool, api.WellKnownLabels())
		var incompatible *requirements.IncompatibleError
		switch {
		case err == nil:
			fmt.Printf("D%s: compatible\n", cpu)
		case errors.As(err, &incompatible):
			fmt.Printf("D%s: %s on %s\n", cpu, incompatible.Reason, incompatible.Key)
			fmt.Println(err)
		}
	}
	// Output:
	// D2: disjoint on karpenter.azure.com/sku-cpu
	// requirements: label "karpenter.azure.com/sku-cpu": karpenter.azure.com/sku-cpu Gte 5 does not intersect karpenter.azure.com/sku-cpu In [2]
	// D8: compatible
}

// Requirements narrow as requirements on the same key are added; labels follow once one value is left.
func ExampleRequirements_Add() {
	claim := requirements.New(
		requirements.NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1", "eastus-2", "eastus-3"),
		requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, "spot", "on-demand"),
	)
	claim.Add(
		requirements.NewRequirement("failure-domain.beta.kubernetes.io/zone", corev1.NodeSelectorOpNotIn, "eastus-1"),
		requirements.NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, "on-demand"),
	)
	fmt.Println(claim)
	fmt.Println(claim.Labels())
	// Output:
	// karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone In [eastus-2 eastus-3]
	// map[karpenter.sh/capacity-type:on-demand]
}
