package imagefamily

import "strings"

// ImageInput is what image resolution needs beyond the family.
type ImageInput struct {
	Family  Family
	Variant Variant
	// Arch is the VM size's kubernetes.io/arch.
	Arch string
	// HyperVGenerations are the generations the VM size supports ("1", "2", or "V1", "V2").
	HyperVGenerations []string
	// Gallery picks the reference form; "" means CommunityGallery.
	Gallery GalleryKind
	// SIGSubscriptionID is the subscription of AKS's shared image gallery; required for
	// SharedImageGallery.
	SIGSubscriptionID string
	// Version pins the image version. When "", the newest entry of Available for the chosen
	// definition is used: by publish date in a community gallery, by version number in the shared one.
	Version string
	// Available lists the published versions known to the caller, for any definitions.
	Available []AvailableVersion
}

// Image is a resolved node image.
type Image struct {
	Family     Family         `json:"family"`
	Variant    Variant        `json:"variant"`
	Definition Definition     `json:"definition"`
	Reference  ImageReference `json:"reference"`
}

// ImageReference locates one image version in a gallery.
type ImageReference struct {
	// Kind says which gallery, and so which VM field the ID goes in (communityGalleryImageId or id).
	Kind GalleryKind `json:"kind"`
	// ID is the full image version ID.
	ID         string `json:"id"`
	Gallery    string `json:"gallery"`
	Definition string `json:"definition"`
	Version    string `json:"version"`
}

// NodeImageVersion returns the AKS node image version of a shared image gallery reference; see the
// function of the same name.
func (r ImageReference) NodeImageVersion() (string, error) { return NodeImageVersion(r.ID) }

// ResolveImage picks the image definition for the VM size and the version to boot, and builds its
// reference. FIPS and Windows images exist only in the shared image gallery, so asking for them from
// a community gallery is ErrUnsupported.
func ResolveImage(in ImageInput) (Image, error) {
	kind, err := resolveGalleryKind(in)
	if err != nil {
		return Image{}, err
	}
	def, err := SelectDefinition(in.Family, in.Variant, in.Arch, in.HyperVGenerations)
	if err != nil {
		return Image{}, err
	}
	version, err := pickVersion(in, kind, def.Name)
	if err != nil {
		return Image{}, err
	}
	return Image{
		Family: in.Family, Variant: in.Variant, Definition: def,
		Reference: reference(in, kind, def.Name, version),
	}, nil
}

func resolveGalleryKind(in ImageInput) (GalleryKind, error) {
	switch in.Gallery {
	case "", CommunityGallery:
		if galleryFor(in.Family).community == "" || in.Variant == VariantFIPS || in.Variant == VariantFIPSTrustedLaunch {
			return "", newError(ErrUnsupported, "gallery", string(CommunityGallery),
				"%s %s images are only published in AKS's shared image gallery", in.Family, in.Variant)
		}
		return CommunityGallery, nil
	case SharedImageGallery:
		if in.SIGSubscriptionID == "" {
			return "", newError(ErrInvalid, "SIG subscription ID", nil, "the shared image gallery needs its subscription ID")
		}
		return SharedImageGallery, nil
	default:
		return "", newError(ErrInvalid, "gallery", string(in.Gallery), "must be %s or %s", CommunityGallery, SharedImageGallery)
	}
}

func pickVersion(in ImageInput, kind GalleryKind, definition string) (string, error) {
	if in.Version != "" {
		if _, err := parseImageVersion(in.Version); err != nil {
			return "", err
		}
		return in.Version, nil
	}
	var candidates []AvailableVersion
	var numbers []string
	for _, v := range in.Available {
		if strings.EqualFold(v.Definition, definition) {
			candidates = append(candidates, v)
			numbers = append(numbers, v.Version)
		}
	}
	if len(candidates) == 0 {
		return "", newError(ErrNoImageVersion, "image definition", definition, "no version given and none listed as available")
	}
	if kind == CommunityGallery {
		v, err := NewestPublished(candidates)
		return v.Version, err
	}
	return NewestVersion(numbers)
}

func reference(in ImageInput, kind GalleryKind, definition, version string) ImageReference {
	g := galleryFor(in.Family)
	ref := ImageReference{Kind: kind, Gallery: g.name, Definition: definition, Version: version}
	if kind == CommunityGallery {
		ref.Gallery = g.community
		ref.ID = CommunityImageID(g.community, definition, version)
		return ref
	}
	ref.ID = SharedImageID(in.SIGSubscriptionID, g.resourceGroup, g.name, definition, version)
	return ref
}
