package kubeletconfig_test

import (
	"fmt"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/kubeletconfig"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Standard_D2s_v3 (2 vCPU, 8 GiB) in an Azure CNI overlay cluster: one Reserve call feeds both the
// scheduling estimate and the kubelet flags, and they agree to the byte.
func Example() {
	network := api.DefaultClusterNetwork()
	maxPods := kubeletconfig.MaxPods(nil, network)
	r, err := kubeletconfig.Reserve(kubeletconfig.ReservationInput{VCPUs: 2, MemoryMiB: 8 * 1024, MaxPods: maxPods})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The catalogue: capacity (8 GiB minus the 7.5% VM overhead) minus the reservation.
	total := r.Total()
	allocatable := *resource.NewQuantity(7_945_689_497, resource.BinarySI)
	allocatable.Sub(*total.Memory())
	fmt.Println("allocatable memory bytes:", allocatable.Value())

	// The node: the same numbers as kubelet flags.
	c, err := kubeletconfig.Build(kubeletconfig.BuildInput{Reservation: r, MaxPods: maxPods})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(c.Flags(), "\n"))
	// Output:
	// allocatable memory bytes: 5693348249
	// --cluster-dns=10.0.0.10
	// --cluster-domain=cluster.local
	// --eviction-hard=memory.available<100Mi
	// --kube-reserved=cpu=100m,memory=2048Mi
	// --max-pods=250
	// --system-reserved=cpu=0,memory=0
}

// The older AKS bracket policy, selectable for comparison with nodes built by upstream.
func ExampleReserve_aksBrackets() {
	r, err := kubeletconfig.Reserve(kubeletconfig.ReservationInput{
		VCPUs: 2, MemoryMiB: 8 * 1024, MaxPods: 250, Policy: kubeletconfig.PolicyAKSBrackets,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kube-reserved memory:", r.KubeReserved.Memory().Value()>>20, "MiB")
	fmt.Println("eviction threshold:", r.EvictionThreshold.Memory().Value()>>20, "MiB")
	// Output:
	// kube-reserved memory: 1843 MiB
	// eviction threshold: 750 MiB
}

// A bad node-class setting is rejected before any VM is created, naming the field.
func ExampleConfig_Validate() {
	r, _ := kubeletconfig.Reserve(kubeletconfig.ReservationInput{VCPUs: 2, MemoryMiB: 8192, MaxPods: 250})
	low, high := int32(90), int32(85)
	nodeClass := &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{Kubelet: &api.KubeletConfiguration{
		ImageGCHighThresholdPercent: &high, ImageGCLowThresholdPercent: &low,
	}}}
	_, err := kubeletconfig.Build(kubeletconfig.BuildInput{NodeClass: nodeClass, Reservation: r, MaxPods: 250})
	fmt.Println(err)
	// Output:
	// invalid kubelet configuration: spec.kubelet.imageGCLowThresholdPercent: must be less than imageGCHighThresholdPercent (85; the kubelet defaults are high 85, low 80), got 90
}
