package imagefamily

import (
	"regexp"
	"strings"
)

// GalleryKind says which kind of Azure Compute Gallery an image reference points into.
type GalleryKind string

// The gallery kinds.
const (
	// CommunityGallery is a public community gallery, readable by any subscription; self-hosted
	// Karpenter's default. It carries no FIPS or Windows images.
	CommunityGallery GalleryKind = "CommunityGallery"
	// SharedImageGallery is AKS's shared image gallery, readable by AKS (Node Auto Provisioning). The
	// AKS Machine API only accepts images from it.
	SharedImageGallery GalleryKind = "SharedImageGallery"
)

// gallery is where one operating system's AKS node images are published.
type gallery struct {
	name          string // SIG gallery name, also the prefix of node image versions
	resourceGroup string // SIG resource group
	community     string // public community gallery name; "" when there is none
}

// galleryFor returns the gallery of a family.
func galleryFor(f Family) gallery {
	switch f {
	case AzureLinux2, AzureLinux3:
		return gallery{"AKSAzureLinux", "AKS-AzureLinux", "AKSAzureLinux-f7c7cda5-1c9a-4bdc-a222-9614c968580b"}
	case Windows2022, Windows2025:
		return gallery{"AKSWindows", "AKS-Windows", ""}
	default:
		return gallery{"AKSUbuntu", "AKS-Ubuntu", "AKSUbuntu-38d80f77-467a-481f-a8d4-09b6d4220bd2"}
	}
}

// CommunityImageID returns the ID of an image version in a community gallery, as a VM's
// imageReference.communityGalleryImageId wants it.
func CommunityImageID(publicGallery, definition, version string) string {
	return "/CommunityGalleries/" + publicGallery + "/images/" + definition + "/versions/" + version
}

// SharedImageID returns the ARM ID of an image version in a shared image gallery, as a VM's
// imageReference.id wants it.
func SharedImageID(subscriptionID, resourceGroup, galleryName, definition, version string) string {
	return "/subscriptions/" + subscriptionID + "/resourceGroups/" + resourceGroup +
		"/providers/Microsoft.Compute/galleries/" + galleryName + "/images/" + definition + "/versions/" + version
}

// sigIDPattern matches a shared image gallery version ID; ARM IDs are case-insensitive.
var sigIDPattern = regexp.MustCompile(
	`(?i)^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/galleries/([^/]+)/images/([^/]+)/versions/([^/]+)$`)

// NodeImageVersion converts a shared image gallery version ID into the AKS node image version
// "<gallery>-<definition>-<version>" (e.g. AKSUbuntu-2204gen2containerd-2022.10.03), which is what
// the AKS Machine API takes instead of an ID. Community gallery IDs and anything else fail with
// ErrInvalid: AKS only boots machines from its own gallery.
func NodeImageVersion(sigID string) (string, error) {
	m := sigIDPattern.FindStringSubmatch(sigID)
	if m == nil {
		return "", newError(ErrInvalid, "image ID", sigID,
			"incorrect SIG image ID; want /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/galleries/<gallery>/images/<definition>/versions/<version>")
	}
	return strings.Join(m[1:], "-"), nil
}
