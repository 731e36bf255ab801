package requirements

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

var (
	sinkRequirement  *Requirement
	sinkRequirements Requirements
	sinkBool         bool
	sinkErr          error
)

func BenchmarkNewRequirement(b *testing.B) {
	b.Run("In-single", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkRequirement = NewRequirement(api.LabelSKUFamily, corev1.NodeSelectorOpIn, "D")
		}
	})
	b.Run("In-three", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkRequirement = NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-3", "eastus-1", "eastus-2")
		}
	})
	b.Run("Gt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkRequirement = NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpGt, "4")
		}
	})
}

func BenchmarkIntersection(b *testing.B) {
	zones := NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1", "eastus-2", "eastus-3")
	cases := []struct {
		name string
		a, o *Requirement
	}{
		{"set-set", zones, NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-2")},
		{"set-complement", zones, NewRequirement(api.LabelZone, corev1.NodeSelectorOpNotIn, "eastus-2")},
		{"complement-complement", NewRequirement(api.LabelZone, corev1.NodeSelectorOpNotIn, "eastus-1"), NewRequirement(api.LabelZone, corev1.NodeSelectorOpNotIn, "eastus-2")},
		{"bounds-set", NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpGt, "4"), NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpIn, "8")},
		{"bounds-bounds", NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpGt, "4"), NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpLt, "16")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkRequirement = c.a.Intersection(c.o)
			}
		})
		b.Run(c.name+"/Intersects", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = c.a.Intersects(c.o)
			}
		})
	}
}

// BenchmarkCompatible is the scheduler's inner check: an instance type's ~30 single-valued labels
// plus its zones and capacity types against a NodePool's four requirements.
func BenchmarkCompatible(b *testing.B) {
	d8, pool := instanceType(8), nodePool()
	arm := nodePool()
	arm.Add(NewRequirement(api.LabelArch, corev1.NodeSelectorOpIn, api.ArchARM64))
	wellKnown := api.WellKnownLabels()
	b.Run("compatible", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = d8.Compatible(pool, wellKnown)
		}
	})
	b.Run("incompatible", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkErr = d8.Compatible(arm, wellKnown)
		}
	})
	b.Run("IsCompatible", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = d8.IsCompatible(pool, wellKnown)
		}
	})
}

// BenchmarkAdd narrows a NodeClaim's requirements (a clone of the NodePool's) by a pod's, the way the
// scheduler does for every pod it tries on a claim.
func BenchmarkAdd(b *testing.B) {
	pool := nodePool()
	pod := []*Requirement{
		NewRequirement(api.LabelZone, corev1.NodeSelectorOpIn, "eastus-1", "eastus-2"),
		NewRequirement(api.LabelCapacityType, corev1.NodeSelectorOpIn, api.CapacityTypeOnDemand, api.CapacityTypeSpot),
		NewRequirement(api.LabelSKUCPU, corev1.NodeSelectorOpLt, "16"),
	}
	b.ReportAllocs()
	for b.Loop() {
		claim := pool.Clone()
		claim.Add(pod...)
		sinkRequirements = claim
	}
}

// BenchmarkCatalogue builds requirements for ~40,000 labels: 1,300 instance types of ~32 each, about
// an Azure region's catalogue. The budget is well under 20 ms per op.
func BenchmarkCatalogue(b *testing.B) {
	const types = 1300
	labels := make([]map[string]string, types)
	for i := range labels {
		labels[i] = instanceTypeLabels(i + 1)
		labels[i][api.LabelInstanceType] = "type-" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range labels {
			sinkRequirements = FromLabels(l)
		}
	}
}
