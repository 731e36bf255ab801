package imagefamily

// CommunityGalleryName is the public community gallery that publishes the family's node images,
// or "" when the family has none there (Windows); image discovery lists versions in it.
func CommunityGalleryName(f Family) string { return galleryFor(f).community }

// SharedGallery names AKS's shared image gallery of the family: its resource group (in the SIG
// subscription) and gallery name; image discovery lists versions in it.
func SharedGallery(f Family) (resourceGroup, name string) {
	g := galleryFor(f)
	return g.resourceGroup, g.name
}
