package api_test

import (
	"errors"
	"fmt"

	"github.com/napkit/napkit/api"
	corev1 "k8s.io/api/core/v1"
)

func ExampleValidateRequirement() {
	err := api.ValidateRequirement("spec.template.spec.requirements[2]", api.NodeSelectorRequirementWithMinValues{
		Key:      api.LabelSKUCPU,
		Operator: corev1.NodeSelectorOpGt,
		Values:   []string{"a"},
	})
	fmt.Println(err)
	fmt.Println(errors.Is(err, api.ErrInvalid))
	// Output:
	// spec.template.spec.requirements[2]: operator Gt needs exactly one non-negative integer, got ["a"]
	// true
}

func ExampleNodePool_Default() {
	np := &api.NodePool{}
	np.Name = "general"
	np.Spec.Template.Spec.NodeClassRef = &api.NodeClassReference{Name: "default"}
	for _, note := range np.Default() {
		fmt.Println(note)
	}
	fmt.Println(np.Spec.Template.Spec.ExpireAfter, np.Spec.Disruption.ConsolidationPolicy, np.Spec.Disruption.Budgets[0].Nodes)
	// Output:
	// NodePool/general: spec.template.spec.nodeClassRef: defaulted group karpenter.azure.com and kind AKSNodeClass: the reference names only "default", taken as the AKSNodeClass of that name
	// 720h0m0s WhenEmptyOrUnderutilized 10%
}

func ExampleClusterNetwork_Validate() {
	err := api.ClusterNetwork{Plugin: api.NetworkPluginKubenet}.Validate()
	fmt.Println(err)
	// Output:
	// plugin: kubenet is not supported by Karpenter on AKS (a documented limitation); use Azure CNI overlay, got "kubenet"
}
