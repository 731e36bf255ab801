package api

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	imageFamilies = []string{
		ImageFamilyUbuntu, ImageFamilyUbuntu2204, ImageFamilyUbuntu2404, ImageFamilyAzureLinux,
		ImageFamilyWindows2022, ImageFamilyWindows2025,
	}
	fipsModes = []string{string(FIPSModeFIPS), string(FIPSModeDisabled)}
)

// IsWindowsImageFamily reports whether family is one of the Windows families.
func IsWindowsImageFamily(family string) bool {
	return family == ImageFamilyWindows2022 || family == ImageFamilyWindows2025
}

// TrustedLaunch reports whether the class asks for a trusted-launch VM (secure boot or vTPM).
func (s *AKSNodeClassSpec) TrustedLaunch() bool {
	return s.Security != nil && (isTrue(s.Security.SecureBoot) || isTrue(s.Security.VTPM))
}

// FIPS reports whether the class asks for FIPS-compliant images.
func (s *AKSNodeClassSpec) FIPS() bool { return s.FIPSMode != nil && *s.FIPSMode == FIPSModeFIPS }

func isTrue(b *bool) bool { return b != nil && *b }

// validateImage checks the family and FIPS enums and the CEL rules tying FIPS to families: the image
// galleries have no FIPS Ubuntu 24.04 image, and the only FIPS Ubuntu 22.04 image is a trusted-launch
// one; FIPS trusted-launch images exist only for Ubuntu 22.04.
func validateImage(sp *field.Path, s *AKSNodeClassSpec) []*FieldError {
	family := ""
	if s.ImageFamily != nil {
		family = *s.ImageFamily
	}
	errs := oneOf(sp.Child("imageFamily"), family, imageFamilies...)
	if s.ImageFamily != nil && family == "" {
		// oneOf lets "" through as "use the default"; an explicit empty string is a typo.
		errs = append(errs, invalid(sp.Child("imageFamily"), family, "must be one of %s", strings.Join(imageFamilies, ", ")))
	}
	if s.FIPSMode != nil {
		errs = append(errs, oneOf(sp.Child("fipsMode"), string(*s.FIPSMode), fipsModes...)...)
	}
	if !s.FIPS() {
		return errs
	}
	fp := sp.Child("fipsMode")
	switch {
	case family == ImageFamilyUbuntu2404:
		errs = append(errs, invalid(fp, string(FIPSModeFIPS), "FIPS is not available for Ubuntu2404; use Ubuntu, Ubuntu2204 with trusted launch, or AzureLinux"))
	case family == ImageFamilyUbuntu2204 && !s.TrustedLaunch():
		errs = append(errs, invalid(fp, string(FIPSModeFIPS), "FIPS with Ubuntu2204 needs trusted launch (spec.security.secureBoot or spec.security.vTPM true)"))
	case s.TrustedLaunch() && family != "" && family != ImageFamilyUbuntu && family != ImageFamilyUbuntu2204:
		errs = append(errs, invalid(fp, string(FIPSModeFIPS), "FIPS with trusted launch is only available for Ubuntu and Ubuntu2204, not %s", family))
	}
	return errs
}
