package manifest_test

import (
	"fmt"
	"strings"

	"github.com/napkit/napkit/manifest"
)

func ExampleDecode() {
	const manifests = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
      nodeClassRef:
        name: default
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata:
  name: default
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
`
	set, err := manifest.Decode(strings.NewReader(manifests), "cluster.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	np := set.NodePools[0]
	fmt.Println(np.Name, np.Spec.Template.Spec.ExpireAfter, np.Spec.Disruption.Budgets[0].Nodes)
	fmt.Println(set.NodeClasses[0].Name, *set.NodeClasses[0].Spec.ImageFamily, *set.NodeClasses[0].Spec.OSDiskSizeGB)
	for _, note := range set.Notes {
		fmt.Println(note)
	}

	_, err = manifest.Decode(strings.NewReader(strings.Replace(manifests, "requirements:", "requirement:", 1)), "cluster.yaml")
	fmt.Println(err)
	// Output:
	// general 720h0m0s 10%
	// default Ubuntu 128
	// NodePool/general: spec.template.spec.nodeClassRef: defaulted group karpenter.azure.com and kind AKSNodeClass: the reference names only "default", taken as the AKSNodeClass of that name
	// Widget/w: skipped cluster.yaml document 3 (line 21): napkit does not read example.com/v1/Widget
	// cluster.yaml document 1 (line 2) NodePool "general": cannot decode: unknown field "spec.template.spec.requirement"
}
