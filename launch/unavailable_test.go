package launch_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
)

func nv(sku string, vcpus int, zone, ct string) launch.Placement {
	return launch.Placement{SKU: sku, Family: "standardNVasv4Family", VCPUs: vcpus, Zone: zone, CapacityType: ct}
}

func TestOfferingKey(t *testing.T) {
	assert.Equal(t, "spot:NV16as_v4:westus", launch.OfferingKey(launch.CapacityTypeSpot, "NV16as_v4", "westus"))
	assert.Equal(t, "spot:NV16as_v4:westus", nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot).Key())
}

// Reference case 16: the family threshold rule.
func TestUnavailableOfferingsFamilyThreshold(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	type mark struct {
		vcpus int // 0 marks the whole family
	}
	tests := []struct {
		name        string
		marks       []mark
		unavailable []launch.Placement
		available   []launch.Placement
	}{
		{
			name:        "marking NV16 blocks NV16 and bigger, not NV8 or on-demand",
			marks:       []mark{{16}},
			unavailable: []launch.Placement{nv("NV16as_v4", 16, "westus", spot), nv("NV24as_v4", 24, "westus", spot), nv("NV32as_v4", 32, "westus", spot)},
			available:   []launch.Placement{nv("NV8as_v4", 8, "westus", spot), nv("NV16as_v4", 16, "westus", od), nv("NV24as_v4", 24, "westus", od)},
		},
		{
			name:        "16 then 24 keeps 16",
			marks:       []mark{{16}, {24}},
			unavailable: []launch.Placement{nv("NV16as_v4", 16, "westus", spot), nv("NV24as_v4", 24, "westus", spot)},
			available:   []launch.Placement{nv("NV8as_v4", 8, "westus", spot)},
		},
		{
			name:        "then 8 tightens to 8",
			marks:       []mark{{16}, {24}, {8}},
			unavailable: []launch.Placement{nv("NV8as_v4", 8, "westus", spot), nv("NV16as_v4", 16, "westus", spot)},
			available:   []launch.Placement{nv("NV4as_v4", 4, "westus", spot)},
		},
		{
			name:        "whole family blocks every size, a later 32 cannot loosen it",
			marks:       []mark{{16}, {0}, {32}},
			unavailable: []launch.Placement{nv("NV4as_v4", 4, "westus", spot), nv("NV8as_v4", 8, "westus", spot), nv("NV32as_v4", 32, "westus", spot)},
			available:   []launch.Placement{nv("NV4as_v4", 4, "westus", od)},
		},
		{
			name:  "other family and other zone unaffected",
			marks: []mark{{16}},
			available: []launch.Placement{
				{SKU: "NV16ads_v5", Family: "standardNVadsv5Family", VCPUs: 18, Zone: "westus", CapacityType: spot},
				nv("NV16as_v4", 16, "eastus", spot),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			c := launch.NewUnavailableOfferings(clock.Now)
			for _, m := range tt.marks {
				if m.vcpus == 0 {
					c.MarkFamilyUnavailable("standardNVasv4Family", "westus", spot, time.Hour)
				} else {
					c.MarkUnavailable(nv("NV-marked", m.vcpus, "westus", spot), time.Hour)
				}
				clock.Advance(time.Second)
			}
			for _, p := range tt.unavailable {
				assert.True(t, c.IsUnavailable(p), "%s %d %s should be unavailable", p.SKU, p.VCPUs, p.CapacityType)
			}
			for _, p := range tt.available {
				assert.False(t, c.IsUnavailable(p), "%s %d %s should be available", p.SKU, p.VCPUs, p.CapacityType)
			}
		})
	}
}

func TestUnavailableOfferingsExpiry(t *testing.T) {
	clock := newFakeClock()
	c := launch.NewUnavailableOfferings(clock.Now)
	p := nv("NV16as_v4", 16, "westus", launch.CapacityTypeOnDemand)
	c.MarkUnavailable(p, 10*time.Minute)
	c.MarkSpotUnavailable(time.Hour)

	clock.Advance(10*time.Minute - time.Second)
	assert.True(t, c.IsUnavailable(p))
	clock.Advance(time.Second)
	assert.False(t, c.IsUnavailable(p), "offering and family entries expire together")
	assert.True(t, c.IsUnavailable(nv("NV4as_v4", 4, "anywhere", launch.CapacityTypeSpot)), "global spot key still live")
	clock.Advance(50 * time.Minute)
	assert.False(t, c.IsUnavailable(nv("NV4as_v4", 4, "anywhere", launch.CapacityTypeSpot)))
}

func TestUnavailableOfferingsShorterTighterMarkKeepsLongerLooserOne(t *testing.T) {
	clock := newFakeClock()
	c := launch.NewUnavailableOfferings(clock.Now)
	c.MarkUnavailable(nv("NV32as_v4", 32, "westus", launch.CapacityTypeSpot), time.Hour)
	c.MarkUnavailable(nv("NV8as_v4", 8, "westus", launch.CapacityTypeSpot), time.Minute)
	assert.True(t, c.IsUnavailable(nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot)))
	clock.Advance(2 * time.Minute)
	assert.False(t, c.IsUnavailable(nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot)), "the 8-vCPU threshold expired")
	assert.True(t, c.IsUnavailable(nv("NV32as_v4", 32, "westus", launch.CapacityTypeSpot)), "the 32-vCPU threshold lives on")
}

func TestUnavailableOfferingsSeqNum(t *testing.T) {
	clock := newFakeClock()
	c := launch.NewUnavailableOfferings(clock.Now)
	p := nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot)
	s0 := c.SeqNum()
	c.MarkUnavailable(p, time.Minute)
	s1 := c.SeqNum()
	require.Greater(t, s1, s0, "a new mark is a material change")
	c.MarkUnavailable(p, time.Minute)
	assert.Equal(t, s1, c.SeqNum(), "re-marking an unavailable offering changes nothing")
	clock.Advance(2 * time.Minute)
	assert.Greater(t, c.SeqNum(), s1, "expiry is a material change")
}

func TestNilUnavailableOfferings(t *testing.T) {
	var c *launch.UnavailableOfferings
	c.MarkUnavailable(nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot), time.Minute)
	c.MarkSpotUnavailable(time.Minute)
	assert.False(t, c.IsUnavailable(nv("NV16as_v4", 16, "westus", launch.CapacityTypeSpot)))
	assert.Zero(t, c.SeqNum())
}
