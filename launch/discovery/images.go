package discovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/napkit/napkit/imagefamily"
)

// ImageVersionsTTL is how long a definition's version list is reused (upstream:
// pkg/providers/imagefamily/nodeimage.go ImageExpirationInterval, 3 days).
const ImageVersionsTTL = 3 * 24 * time.Hour

// ErrNoGallery marks a family with no gallery of the asked kind (Windows in the community gallery).
var ErrNoGallery = errors.New("no gallery publishes the family")

// ImagesOptions configure Images.
type ImagesOptions struct {
	// SubscriptionID is the caller's subscription (community galleries are read through it).
	SubscriptionID string
	// SIGSubscriptionID is the subscription of AKS's shared image gallery; needed only to list
	// shared gallery versions.
	SIGSubscriptionID string
	// Location is the region whose community gallery replicas are listed.
	Location   string
	Credential azcore.TokenCredential
	// ClientOptions are passed to every client (the simulated Azure's transport in tests).
	ClientOptions *arm.ClientOptions
	// TTL overrides ImageVersionsTTL; Clock is time.Now when nil.
	TTL   time.Duration
	Clock func() time.Time
}

// Images lists published node image versions.
type Images struct {
	opts      ImagesOptions
	community *armcompute.CommunityGalleryImageVersionsClient
	shared    *armcompute.GalleryImageVersionsClient
	cache     *ttlCache[[]imagefamily.AvailableVersion]
}

// NewImages builds the clients; it makes no call.
func NewImages(o ImagesOptions) (*Images, error) {
	if o.SubscriptionID == "" || o.Location == "" {
		return nil, errors.New("discovery: SubscriptionID and Location are required")
	}
	if o.TTL <= 0 {
		o.TTL = ImageVersionsTTL
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	community, err := armcompute.NewCommunityGalleryImageVersionsClient(o.SubscriptionID, o.Credential, o.ClientOptions)
	if err != nil {
		return nil, fmt.Errorf("community gallery image versions client: %w", err)
	}
	sigSub := o.SIGSubscriptionID
	if sigSub == "" {
		sigSub = o.SubscriptionID
	}
	shared, err := armcompute.NewGalleryImageVersionsClient(sigSub, o.Credential, o.ClientOptions)
	if err != nil {
		return nil, fmt.Errorf("gallery image versions client: %w", err)
	}
	return &Images{opts: o, community: community, shared: shared, cache: newTTLCache[[]imagefamily.AvailableVersion](o.TTL, o.Clock)}, nil
}

// Versions lists the published versions of each definition of the family in the gallery kind
// ("" is the community gallery). Versions marked excludeFromLatest are left out, as they are
// never "latest". An empty list is not an error: the caller's status says no image was found.
func (d *Images) Versions(ctx context.Context, gallery imagefamily.GalleryKind, family imagefamily.Family,
	defs []imagefamily.Definition) ([]imagefamily.AvailableVersion, error) {
	var out []imagefamily.AvailableVersion
	for _, def := range defs {
		vs, err := d.definitionVersions(ctx, gallery, family, def.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (d *Images) definitionVersions(ctx context.Context, gallery imagefamily.GalleryKind, family imagefamily.Family,
	def string) ([]imagefamily.AvailableVersion, error) {
	key := string(gallery) + "/" + string(family) + "/" + def
	if vs, _, ok := d.cache.get(key); ok {
		return vs, nil
	}
	var vs []imagefamily.AvailableVersion
	var err error
	switch gallery {
	case "", imagefamily.CommunityGallery:
		vs, err = d.listCommunity(ctx, family, def)
	case imagefamily.SharedImageGallery:
		vs, err = d.listShared(ctx, family, def)
	default:
		return nil, fmt.Errorf("discovery: gallery kind %q: want %s or %s", gallery, imagefamily.CommunityGallery, imagefamily.SharedImageGallery)
	}
	if err != nil {
		return nil, err
	}
	d.cache.put(key, vs)
	return vs, nil
}

func (d *Images) listCommunity(ctx context.Context, family imagefamily.Family, def string) ([]imagefamily.AvailableVersion, error) {
	name := imagefamily.CommunityGalleryName(family)
	if name == "" {
		return nil, fmt.Errorf("discovery: community gallery for %s: %w", family, ErrNoGallery)
	}
	var out []imagefamily.AvailableVersion
	pager := d.community.NewListPager(d.opts.Location, name, def, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("discovery: list versions of community gallery image %s/%s in %s: %w", name, def, d.opts.Location, err)
		}
		for _, v := range page.Value {
			if v == nil || v.Name == nil || (v.Properties != nil && v.Properties.ExcludeFromLatest != nil && *v.Properties.ExcludeFromLatest) {
				continue
			}
			av := imagefamily.AvailableVersion{Definition: def, Version: *v.Name}
			if v.Properties != nil && v.Properties.PublishedDate != nil {
				av.PublishedAt = *v.Properties.PublishedDate
			}
			out = append(out, av)
		}
	}
	return out, nil
}

func (d *Images) listShared(ctx context.Context, family imagefamily.Family, def string) ([]imagefamily.AvailableVersion, error) {
	rg, name := imagefamily.SharedGallery(family)
	var out []imagefamily.AvailableVersion
	pager := d.shared.NewListByGalleryImagePager(rg, name, def, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("discovery: list versions of shared gallery image %s/%s/%s: %w", rg, name, def, err)
		}
		for _, v := range page.Value {
			if v == nil || v.Name == nil {
				continue
			}
			av := imagefamily.AvailableVersion{Definition: def, Version: *v.Name}
			if p := v.Properties; p != nil && p.PublishingProfile != nil {
				if p.PublishingProfile.ExcludeFromLatest != nil && *p.PublishingProfile.ExcludeFromLatest {
					continue
				}
				if p.PublishingProfile.PublishedDate != nil {
					av.PublishedAt = *p.PublishingProfile.PublishedDate
				}
			}
			out = append(out, av)
		}
	}
	return out, nil
}
