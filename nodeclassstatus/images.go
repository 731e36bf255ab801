package nodeclassstatus

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

// Definitions returns the image definitions the class can boot at the Kubernetes version, in
// priority order: what discovery must list versions of.
func Definitions(class *api.AKSNodeClass, kubernetesVersion string, mode imagefamily.Mode) (imagefamily.Family, []imagefamily.Definition, error) {
	family, err := imagefamily.ResolveFamily(imagefamily.FamilyInputFor(class, kubernetesVersion, mode))
	if err != nil {
		return "", nil, err
	}
	variant := imagefamily.VariantOf(class.Spec.FIPS(), class.Spec.TrustedLaunch())
	return family, imagefamily.Definitions(family, variant), nil
}

// goalImages resolves the newest published version of every definition the class can boot, in
// definition priority order. A definition with no published version is left out.
func goalImages(in Input, family imagefamily.Family, defs []imagefamily.Definition) ([]api.NodeImage, error) {
	variant := imagefamily.VariantOf(in.Class.Spec.FIPS(), in.Class.Spec.TrustedLaunch())
	var out []api.NodeImage
	for _, def := range defs {
		img, err := imagefamily.ResolveImage(imagefamily.ImageInput{
			Family: family, Variant: variant, Arch: def.Arch, HyperVGenerations: []string{def.HyperVGeneration},
			Gallery: in.Gallery, SIGSubscriptionID: in.SIGSubscriptionID, Available: in.Available,
		})
		if errors.Is(err, imagefamily.ErrNoImageVersion) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, api.NodeImage{ID: img.Reference.ID, Requirements: imageRequirements(def)})
	}
	return out, nil
}

// imageRequirements are the node requirements an image serves, sorted as upstream sorts them
// (shorter keys first, then by key).
func imageRequirements(def imagefamily.Definition) []api.NodeSelectorRequirementWithMinValues {
	reqs := []api.NodeSelectorRequirementWithMinValues{
		{Key: api.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{def.Arch}},
		{Key: api.LabelSKUHyperVGeneration, Operator: corev1.NodeSelectorOpIn, Values: []string{def.HyperVGeneration}},
	}
	slices.SortFunc(reqs, func(a, b api.NodeSelectorRequirementWithMinValues) int {
		return cmp.Or(cmp.Compare(len(a.Key), len(b.Key)), cmp.Compare(a.Key, b.Key))
	})
	return reqs
}

// keepRecordedVersions is upstream's partial update outside a maintenance window: a definition
// already recorded keeps its recorded image (and version); a new definition comes in at its
// newest version; a definition no longer selected goes.
func keepRecordedVersions(recorded, goal []api.NodeImage) []api.NodeImage {
	byBase := map[string]api.NodeImage{}
	for _, img := range recorded {
		byBase[strings.ToLower(baseID(img.ID))] = img
	}
	out := make([]api.NodeImage, 0, len(goal))
	for _, img := range goal {
		if old, ok := byBase[strings.ToLower(baseID(img.ID))]; ok {
			img = old
		}
		out = append(out, img)
	}
	return out
}

// baseID trims "/versions/<version>" off an image version ID.
func baseID(id string) string {
	if i := strings.LastIndex(strings.ToLower(id), "/versions/"); i >= 0 {
		return id[:i]
	}
	return id
}

// VersionOf returns the version part of an image version ID ("" when it has none).
func VersionOf(id string) string {
	if i := strings.LastIndex(strings.ToLower(id), "/versions/"); i >= 0 {
		return id[i+len("/versions/"):]
	}
	return ""
}
