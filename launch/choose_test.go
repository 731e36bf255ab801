package launch_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/launch"
)

func TestChoose(t *testing.T) {
	spot, od := launch.CapacityTypeSpot, launch.CapacityTypeOnDemand
	unavailable := func(o launch.Offering) launch.Offering { o.Available = false; return o }
	tests := []struct {
		name       string
		candidates []launch.Candidate
		marked     []launch.Placement
		wantSKU    string
		wantZone   string
		wantCT     string
		wantNone   bool
	}{
		{
			name: "cheapest first",
			candidates: []launch.Candidate{
				candidate("Standard_D4s_v5", 4, offering("westus2-1", od, 0.20)),
				candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.10)),
			},
			wantSKU: "Standard_D2s_v5", wantZone: "westus2-1", wantCT: od,
		},
		{
			name:       "spot before on-demand at equal price",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1), offering("westus2-1", spot, 0.1))},
			wantSKU:    "Standard_D2s_v5", wantZone: "westus2-1", wantCT: spot,
		},
		{
			name:       "zonal before regional at equal price",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("0", od, 0.1), offering("westus2-2", od, 0.1))},
			wantSKU:    "Standard_D2s_v5", wantZone: "westus2-2", wantCT: od,
		},
		{
			name:       "price beats zonal",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("0", od, 0.09), offering("westus2-2", od, 0.1))},
			wantSKU:    "Standard_D2s_v5", wantZone: "0", wantCT: od,
		},
		{
			name: "tied candidates fall to SKU name",
			candidates: []launch.Candidate{
				candidate("Standard_F2s_v2", 2, offering("westus2-1", od, 0.1)),
				candidate("Standard_D2s_v5", 2, offering("westus2-1", od, 0.1)),
			},
			wantSKU: "Standard_D2s_v5", wantZone: "westus2-1", wantCT: od,
		},
		{
			name:       "catalogue-unavailable offerings are skipped",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, unavailable(offering("westus2-1", spot, 0.01)), offering("westus2-1", od, 0.1))},
			wantSKU:    "Standard_D2s_v5", wantZone: "westus2-1", wantCT: od,
		},
		{
			name:       "cached-unavailable offerings are skipped",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, offering("westus2-1", spot, 0.01), offering("westus2-1", od, 0.1))},
			marked:     []launch.Placement{d("Standard_D2s_v5", 2, "westus2-1", spot)},
			wantSKU:    "Standard_D2s_v5", wantZone: "westus2-1", wantCT: od,
		},
		{
			name:       "family threshold hides bigger sizes",
			candidates: []launch.Candidate{candidate("Standard_D8s_v5", 8, offering("westus2-1", od, 0.1)), candidate("Standard_D4s_v5", 4, offering("westus2-1", od, 0.2))},
			marked:     []launch.Placement{d("Standard_D4s_v5", 4, "westus2-1", od)},
			wantNone:   true,
		},
		{
			name:       "nothing left",
			candidates: []launch.Candidate{candidate("Standard_D2s_v5", 2, unavailable(offering("westus2-1", od, 0.1)))},
			wantNone:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := launch.NewUnavailableOfferings(newFakeClock().Now)
			for _, p := range tt.marked {
				cache.MarkUnavailable(p, time.Hour)
			}
			got, ok := launch.Choose(tt.candidates, cache, rand.New(rand.NewPCG(1, 2)))
			if tt.wantNone {
				assert.False(t, ok)
				return
			}
			assert.True(t, ok)
			assert.Equal(t, tt.wantSKU, got.Candidate.SKU)
			assert.Equal(t, tt.wantZone, got.Offering.Zone)
			assert.Equal(t, tt.wantCT, got.Offering.CapacityType)
		})
	}
}

// Equal offerings are spread by the seed, and the same seed chooses the same.
func TestChooseSeededTieBreak(t *testing.T) {
	cands := []launch.Candidate{candidate("Standard_D2s_v5", 2,
		offering("westus2-1", launch.CapacityTypeOnDemand, 0.1),
		offering("westus2-2", launch.CapacityTypeOnDemand, 0.1),
		offering("westus2-3", launch.CapacityTypeOnDemand, 0.1))}
	zones := map[string]int{}
	for seed := range uint64(60) {
		first, _ := launch.Choose(cands, nil, rand.New(rand.NewPCG(seed, 0)))
		again, _ := launch.Choose(cands, nil, rand.New(rand.NewPCG(seed, 0)))
		assert.Equal(t, first, again, "seed %d", seed)
		zones[first.Offering.Zone]++
	}
	assert.Len(t, zones, 3, "ties spread over all zones: %v", zones)
	noShuffle, _ := launch.Choose(cands, nil, nil)
	assert.Equal(t, "westus2-1", noShuffle.Offering.Zone, "a nil source keeps input order")
}

func TestChooseDoesNotMutateInput(t *testing.T) {
	cands := []launch.Candidate{candidate("Standard_D2s_v5", 2, zonal(0.1)...)}
	before := append([]launch.Offering(nil), cands[0].Offerings...)
	launch.Choose(cands, nil, rand.New(rand.NewPCG(7, 7)))
	assert.Equal(t, before, cands[0].Offerings)
}
