package imagefamily

import "github.com/napkit/napkit/api"

// Labels the image implies, written by AKS on its own nodes so that workloads can select an OS
// release. They are AKS's keys, so napkit spells them the same way.
const (
	LabelOSSKU          = api.LabelAKSOSSKU
	LabelOSSKURequested = "kubernetes.azure.com/os-sku-requested"
	LabelOSSKUEffective = "kubernetes.azure.com/os-sku-effective"
	LabelFIPSEnabled    = api.LabelAKSFIPSEnabled
)

// ImageLabels returns the node labels implied by the image: os-sku (Ubuntu, AzureLinux or the
// Windows release), os-sku-requested (spec.imageFamily as written, "Ubuntu" when unset),
// os-sku-effective (the release the alias resolved to) and, for FIPS images, fips_enabled=true.
// The map is new on every call.
func ImageLabels(requested string, f Family, fips bool) map[string]string {
	if requested == "" {
		requested = api.ImageFamilyUbuntu
	}
	labels := map[string]string{
		LabelOSSKU:          f.OSSKU(),
		LabelOSSKURequested: requested,
		LabelOSSKUEffective: effectiveOSSKU(f),
	}
	if fips {
		labels[LabelFIPSEnabled] = "true"
	}
	return labels
}

// effectiveOSSKU is the os-sku-effective value. AKS has no value for Ubuntu 20.04 (it is reached
// only through the FIPS fallback of the "Ubuntu" alias), so that release reports plain "Ubuntu".
func effectiveOSSKU(f Family) string {
	if f == Ubuntu2004 {
		return api.ImageFamilyUbuntu
	}
	return string(f)
}
