package imagefamily

import (
	"slices"
	"strings"
)

// SelectDefinition returns the first definition of the family and variant (in Definitions order) that
// a VM size with the given architecture and Hyper-V generations can boot. Generations may be spelled
// "1"/"2" or as ARM does, "V1"/"V2". It fails with ErrNoImage, naming what was asked for, when none
// fits (for example an arm64 size with a FIPS Ubuntu image, or a Gen1-only size with trusted launch).
func SelectDefinition(f Family, v Variant, arch string, generations []string) (Definition, error) {
	defs := Definitions(f, v)
	if len(defs) == 0 {
		return Definition{}, newError(ErrNoImage, "image variant", string(v), "family %s publishes no such images", f)
	}
	gens := normalizeGenerations(generations)
	for _, d := range defs {
		if d.Arch == arch && slices.Contains(gens, d.HyperVGeneration) {
			return d, nil
		}
	}
	return Definition{}, newError(ErrNoImage, "VM size", arch+" gen "+strings.Join(gens, ","),
		"family %s (%s) has images only for %s", f, v, describe(defs))
}

// normalizeGenerations maps "V1"/"v2" to "1"/"2", sorted and de-duplicated, without touching the
// caller's slice.
func normalizeGenerations(gens []string) []string {
	out := make([]string, 0, len(gens))
	for _, g := range gens {
		out = append(out, strings.TrimPrefix(strings.ToUpper(g), "V"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// describe lists "arch gen N" for each definition, for error messages.
func describe(defs []Definition) string {
	parts := make([]string, len(defs))
	for i, d := range defs {
		parts[i] = d.Arch + " gen " + d.HyperVGeneration
	}
	return strings.Join(parts, ", ")
}
