package launch

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Choice is one offering of one candidate: what a launch attempt tries.
type Choice struct {
	Candidate Candidate
	Offering  Offering
}

// Placement is the choice in the cache's terms.
func (c Choice) Placement() Placement {
	return Placement{
		SKU:          c.Candidate.SKU,
		Family:       c.Candidate.Family,
		VCPUs:        c.Candidate.VCPUs,
		Zone:         c.Offering.Zone,
		CapacityType: c.Offering.CapacityType,
	}
}

// Choose picks the best offering that is Available and not in cache: the
// cheapest first, spot before on-demand at equal price, zonal before
// regional. Offerings still tied are ordered by a shuffle from rnd (so equal
// zones share load), and candidates still tied by SKU name. A nil rnd keeps
// input order. Choose reports false when no offering is left.
func Choose(candidates []Candidate, cache *UnavailableOfferings, rnd *rand.Rand) (Choice, bool) {
	return ChooseUsable(candidates, rnd, func(c Choice) bool {
		return c.Offering.Available && !cache.IsUnavailable(c.Placement())
	})
}

// ChooseUsable is Choose with the availability test as a parameter: a
// launcher that also skips what it has already tried this launch passes its
// own.
func ChooseUsable(candidates []Candidate, rnd *rand.Rand, usable func(Choice) bool) (Choice, bool) {
	var best Choice
	found := false
	for _, cand := range candidates {
		c, ok := bestOffering(cand, rnd, usable)
		if !ok {
			continue
		}
		if !found || betterCandidate(c, best) {
			best, found = c, true
		}
	}
	return best, found
}

// bestOffering shuffles cand's usable offerings and returns the first after a
// stable sort, so ties fall to the shuffle.
func bestOffering(cand Candidate, rnd *rand.Rand, usable func(Choice) bool) (Choice, bool) {
	var offerings []Offering
	for _, o := range cand.Offerings {
		if usable(Choice{Candidate: cand, Offering: o}) {
			offerings = append(offerings, o)
		}
	}
	if len(offerings) == 0 {
		return Choice{}, false
	}
	if rnd != nil {
		rnd.Shuffle(len(offerings), func(i, j int) { offerings[i], offerings[j] = offerings[j], offerings[i] })
	}
	slices.SortStableFunc(offerings, compareOfferings)
	return Choice{Candidate: cand, Offering: offerings[0]}, true
}

// compareOfferings orders by price, then spot first, then zonal first.
func compareOfferings(a, b Offering) int {
	return cmp.Or(
		cmp.Compare(a.Price, b.Price),
		cmp.Compare(rankCapacityType(a.CapacityType), rankCapacityType(b.CapacityType)),
		cmp.Compare(rankZone(a.Zone), rankZone(b.Zone)),
	)
}

// betterCandidate compares best offerings, then SKU names for a stable order.
func betterCandidate(a, b Choice) bool {
	if c := compareOfferings(a.Offering, b.Offering); c != 0 {
		return c < 0
	}
	return a.Candidate.SKU < b.Candidate.SKU
}

func rankCapacityType(ct string) int {
	if ct == CapacityTypeSpot {
		return 0
	}
	return 1
}

func rankZone(zone string) int {
	if isZonal(zone) {
		return 0
	}
	return 1
}

// isZonal reports whether zone is an availability zone rather than regional.
func isZonal(zone string) bool { return zone != RegionalZone }
