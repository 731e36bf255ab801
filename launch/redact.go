package launch

import (
	"fmt"
	"log/slog"
	"strings"
)

// String summarises the request for logs and errors. CustomData is shown
// only as redacted; SSH keys are public, but add nothing, so they are left out.
func (r *Request) String() string {
	if r == nil {
		return "Request(nil)"
	}
	return fmt.Sprintf("Request{NodeClaim: %s, NodePool: %s, Candidates: [%s], Image: %s, CustomData: %s}",
		r.NodeClaimName, r.NodePool, strings.Join(r.skuNames(), " "), r.Image.id(), r.CustomData)
}

// GoString is String, so %#v cannot print CustomData either.
func (r *Request) GoString() string { return r.String() }

// LogValue is the slog form of String.
func (r *Request) LogValue() slog.Value {
	if r == nil {
		return slog.StringValue("nil")
	}
	return slog.GroupValue(
		slog.String("nodeClaim", r.NodeClaimName),
		slog.String("nodePool", r.NodePool),
		slog.Any("candidates", r.skuNames()),
		slog.String("image", r.Image.id()),
	)
}

func (r *Request) skuNames() []string {
	names := make([]string, 0, len(r.Candidates))
	for _, c := range r.Candidates {
		names = append(names, c.SKU)
	}
	return names
}

// id returns whichever image ID is set.
func (i ImageRef) id() string {
	if i.CommunityGalleryImageID != "" {
		return i.CommunityGalleryImageID
	}
	return i.SharedGalleryID
}

// String summarises the instance.
func (i *Instance) String() string {
	if i == nil {
		return "Instance(nil)"
	}
	return fmt.Sprintf("Instance{Name: %s, SKU: %s, Zone: %s, CapacityType: %s, State: %s, ProviderID: %s}",
		i.Name, i.SKU, i.Zone, i.CapacityType, i.State, i.ProviderID)
}

// GoString is String.
func (i *Instance) GoString() string { return i.String() }
