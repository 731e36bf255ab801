package instancetype_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/pricing"
)

// ExampleSKUList_Build builds the southcentralus catalogue for an overlay cluster with a default node class,
// and prints what a Standard_D2s_v3 node offers pods.
func ExampleSKUList_Build() {
	list, err := instancetype.LoadFixture("southcentralus")
	if err != nil {
		panic(err)
	}
	snapshot, err := pricing.DefaultSnapshot()
	if err != nil {
		panic(err)
	}
	prices, _ := snapshot.Region("southcentralus")
	cat, err := list.Build(instancetype.Options{
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
	fmt.Printf("cheapest: %s in %s at $%.4f/h (VM $%.4f + %s %s OS disk $%.4f)\n", cheapest.CapacityType, cheapest.Zone,
		cheapest.Price, cheapest.VMPrice, it.EphemeralOSDisk.StorageAccountType, it.EphemeralOSDisk.Tier, cheapest.DiskPrice)
	// Output:
	// cpu 1900m, memory 5693348249 bytes, pods 250
	// cheapest: spot in southcentralus-1 at $0.0391/h (VM $0.0121 + Premium_LRS P10 OS disk $0.0270)
}

// ExampleBuild builds a catalogue from a SKU record made by hand, as a platform with its own source of
// VM sizes would: no Azure SDK involved.
func ExampleBuild() {
	sku := &instancetype.SKU{
		Name: "Standard_D4s_v5", Size: "D4s_v5", Family: "standardDSv5Family",
		VCPUs: 4, VCPUsAvailable: 4, MemoryGiB: 16, Arch: api.ArchAMD64,
		HyperVGenerations: sets.New("2"), LowPriorityCapable: true, PremiumIO: true,
		Zones: []string{"1", "2"}, OfferedInRegion: true,
	}
	cat, err := instancetype.Build([]*instancetype.SKU{sku}, instancetype.Options{
		Region:  "eastus",
		Network: api.DefaultClusterNetwork(),
	})
	if err != nil {
		panic(err)
	}
	it, _ := cat.Find("Standard_D4s_v5")
	alloc := it.Allocatable()
	cpu, pods := alloc[corev1.ResourceCPU], alloc[corev1.ResourcePods]
	fmt.Printf("cpu %s, pods %s, %d offerings\n", cpu.String(), pods.String(), len(it.Offerings))
	// Output:
	// cpu 3860m, pods 250, 6 offerings
}
