package instancetype_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/azuredata"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/pricing"
)

// ExampleBuild builds the southcentralus catalogue for an overlay cluster with a default node class,
// and prints what a Standard_D2s_v3 node offers pods.
func ExampleBuild() {
	data, err := azuredata.Fixture("southcentralus")
	if err != nil {
		panic(err)
	}
	skus, err := instancetype.ParseSKUs(data)
	if err != nil {
		panic(err)
	}
	snapshot, err := pricing.DefaultSnapshot()
	if err != nil {
		panic(err)
	}
	prices, _ := snapshot.Region("southcentralus")
	cat, err := instancetype.Build(skus, instancetype.Options{
		Region:  "southcentralus",
		Network: api.DefaultClusterNetwork(),
		Prices:  prices,
	})
	if err != nil {
		panic(err)
	}
	it, _ := cat.Find("Standard_D2s_v3")
	alloc := it.Allocatable()
	cpu, memory, pods := alloc[corev1.ResourceCPU], alloc[corev1.ResourceMemory], alloc[corev1.ResourcePods]
	fmt.Printf("cpu %s, memory %d bytes, pods %s\n", cpu.String(), memory.Value(), pods.String())
	cheapest, _ := it.Offerings.Cheapest()
	fmt.Printf("cheapest: %s in %s at $%.4f/h\n", cheapest.CapacityType, cheapest.Zone, cheapest.Price)
	// Output:
	// cpu 1900m, memory 5693348249 bytes, pods 250
	// cheapest: spot in southcentralus-1 at $0.0121/h
}
