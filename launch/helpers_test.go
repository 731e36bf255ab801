package launch_test

import (
	"time"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// Test values of the launch-level tests; the Azure launcher's tests have their own.
const (
	testSubnet     = "/subscriptions/sub/resourceGroups/net/providers/Microsoft.Network/virtualNetworks/vnet/subnets/nodes"
	testCIG        = "/CommunityGalleries/AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2/images/2204gen2containerd/versions/202501.01.0"
	testCustomData = "I2Jvb3RzdHJhcC10b2tlbjogYWJjZGVmLjAxMjM0NTY3ODlhYmNkZWY=" // "#bootstrap-token: abcdef.0123456789abcdef"
	testSIG        = "/subscriptions/sig/resourceGroups/AKS-Ubuntu/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202501.01.0"
	testSSHKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests napkit"
)

// fakeClock is a settable clock for the unavailable-offerings cache.
type fakeClock struct{ now time.Time }

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func offering(zone, capacityType string, price float64) launch.Offering {
	return launch.Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: true}
}

// zonal is the usual offering set: three zones plus regional, on-demand at
// price and spot at a fifth of it.
func zonal(price float64) []launch.Offering {
	var out []launch.Offering
	for _, z := range []string{"westus2-1", "westus2-2", "westus2-3", "0"} {
		out = append(out, offering(z, launch.CapacityTypeOnDemand, price), offering(z, launch.CapacityTypeSpot, price/5))
	}
	return out
}

func candidate(sku string, vcpus int, offerings ...launch.Offering) launch.Candidate {
	return launch.Candidate{
		SKU: sku, Family: "standardDSv5Family", VCPUs: vcpus, AcceleratedNetworking: true, Offerings: offerings,
	}
}

func request(name string, candidates ...launch.Candidate) *launch.Request {
	return &launch.Request{
		NodeClaimName: name,
		NodePool:      "default",
		Candidates:    candidates,
		Image:         launch.ImageRef{CommunityGalleryImageID: testCIG},
		CustomData:    bootstrap.NewSecret(testCustomData),
		OSDiskSizeGB:  128,
		SubnetID:      testSubnet,
		SSHPublicKey:  testSSHKey,
	}
}

// d is a cache placement of a standardDSv5Family size.
func d(sku string, vcpus int, zone, ct string) launch.Placement {
	return launch.Placement{SKU: sku, Family: "standardDSv5Family", VCPUs: vcpus, Zone: zone, CapacityType: ct}
}
