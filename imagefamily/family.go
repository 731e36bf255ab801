package imagefamily

import (
	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// Family is a resolved image family: one operating system release, as opposed to the AKSNodeClass
// spec.imageFamily, which may be a moving alias ("Ubuntu", "AzureLinux").
type Family string

// The resolved families.
const (
	// Ubuntu2004 is only reached through FIPS with the "Ubuntu" alias: it is the last Ubuntu with
	// FIPS images that do not need trusted launch.
	Ubuntu2004  Family = "Ubuntu2004"
	Ubuntu2204  Family = "Ubuntu2204"
	Ubuntu2404  Family = "Ubuntu2404"
	AzureLinux2 Family = "AzureLinux2"
	AzureLinux3 Family = "AzureLinux3"
	Windows2022 Family = "Windows2022"
	Windows2025 Family = "Windows2025"
)

// Version gates: all are Kubernetes 1.x minor versions.
const (
	// From 1.34 the "Ubuntu" alias means Ubuntu 24.04.
	ubuntu2404DefaultMinor = 34
	// From 1.32 "AzureLinux" means Azure Linux 3.
	azureLinux3DefaultMinor = 32
	// Windows Server 2025 nodes need Kubernetes 1.32 or newer.
	windows2025MinimumMinor = 32
)

// IsWindows reports whether the family boots Windows.
func (f Family) IsWindows() bool { return f == Windows2022 || f == Windows2025 }

// OS is the kubernetes.io/os value of the family's nodes.
func (f Family) OS() string {
	if f.IsWindows() {
		return api.OSWindows
	}
	return api.OSLinux
}

// OSSKU is the AKS OS SKU (kubernetes.azure.com/os-sku, the Machine API osSKU): Ubuntu or AzureLinux
// for Linux, the family itself for Windows.
func (f Family) OSSKU() string {
	switch f {
	case AzureLinux2, AzureLinux3:
		return "AzureLinux"
	case Windows2022, Windows2025:
		return string(f)
	default:
		return "Ubuntu"
	}
}

// FamilyInput is what family resolution depends on.
type FamilyInput struct {
	// Requested is the AKSNodeClass spec.imageFamily; "" means the CRD default, "Ubuntu".
	Requested string
	// FIPS is spec.fipsMode == FIPS.
	FIPS bool
	// TrustedLaunch is secure boot or vTPM asked for in spec.security.
	TrustedLaunch bool
	// KubernetesVersion is the cluster version ("1.33.2"); it picks the default release of an alias.
	KubernetesVersion string
	// Mode is the provisioning mode; "" means ModeScriptless.
	Mode Mode
}

// FamilyInputFor reads the family-relevant settings of nodeClass (which may be nil).
func FamilyInputFor(nodeClass *api.AKSNodeClass, kubernetesVersion string, mode Mode) FamilyInput {
	in := FamilyInput{KubernetesVersion: kubernetesVersion, Mode: mode}
	if nodeClass == nil {
		return in
	}
	spec := nodeClass.Spec
	if spec.ImageFamily != nil {
		in.Requested = *spec.ImageFamily
	}
	in.FIPS, in.TrustedLaunch = spec.FIPS(), spec.TrustedLaunch()
	return in
}

// ResolveFamily turns the requested family into the release to boot (reference table 5.1). Errors
// are *api.FieldError of class ErrInvalid (unknown family or mode, bad version) or ErrUnsupported (a
// combination no image serves); each names the field and says what would work.
func ResolveFamily(in FamilyInput) (Family, error) {
	mode, err := in.Mode.Resolve()
	if err != nil {
		return "", err
	}
	switch in.Requested {
	case "", api.ImageFamilyUbuntu:
		return resolveUbuntu(in), nil
	case api.ImageFamilyUbuntu2204:
		return resolveUbuntu2204(in)
	case api.ImageFamilyUbuntu2404:
		return resolveUbuntu2404(in)
	case api.ImageFamilyAzureLinux:
		return resolveAzureLinux(in)
	case api.ImageFamilyWindows2022, api.ImageFamilyWindows2025:
		return resolveWindows(in, mode)
	default:
		return "", newError(ErrInvalid, fieldImageFamily, in.Requested, "must be one of %s, %s, %s, %s, %s, %s",
			api.ImageFamilyUbuntu, api.ImageFamilyUbuntu2204, api.ImageFamilyUbuntu2404,
			api.ImageFamilyAzureLinux, api.ImageFamilyWindows2022, api.ImageFamilyWindows2025)
	}
}

const fieldImageFamily = "spec.imageFamily"

// resolveUbuntu implements the "Ubuntu" alias. FIPS without trusted launch needs 20.04, the last
// release with such images; trusted launch pins 22.04 because its TL images are the established ones.
func resolveUbuntu(in FamilyInput) Family {
	switch {
	case in.FIPS && in.TrustedLaunch:
		return Ubuntu2204
	case in.FIPS:
		return Ubuntu2004
	case in.TrustedLaunch:
		return Ubuntu2204
	case versionAtLeast(in.KubernetesVersion, ubuntu2404DefaultMinor):
		return Ubuntu2404
	default:
		return Ubuntu2204
	}
}

func resolveUbuntu2204(in FamilyInput) (Family, error) {
	if in.FIPS && !in.TrustedLaunch {
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested,
			"FIPS images of Ubuntu2204 exist only for trusted launch; enable spec.security.secureBoot or vTPM, or use imageFamily Ubuntu")
	}
	return Ubuntu2204, nil
}

func resolveUbuntu2404(in FamilyInput) (Family, error) {
	if in.FIPS {
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested,
			"no FIPS images are published for Ubuntu2404; use Ubuntu, Ubuntu2204 with trusted launch, or AzureLinux")
	}
	return Ubuntu2404, nil
}

// resolveAzureLinux picks 3 from 1.32 and 2 before; an unparseable version keeps the older release,
// which every supported cluster version can run.
func resolveAzureLinux(in FamilyInput) (Family, error) {
	if in.FIPS && in.TrustedLaunch {
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested,
			"FIPS with trusted launch is only available for Ubuntu and Ubuntu2204")
	}
	if versionAtLeast(in.KubernetesVersion, azureLinux3DefaultMinor) {
		return AzureLinux3, nil
	}
	return AzureLinux2, nil
}

func resolveWindows(in FamilyInput, mode Mode) (Family, error) {
	f := Family(in.Requested)
	switch {
	case !mode.IsMachineAPI():
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested,
			"Windows nodes need provisioning mode %s or %s; mode %s cannot bootstrap them",
			ModeMachineAPI, ModeMachineAPIHeaderBatch, mode)
	case in.FIPS:
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested, "FIPS mode is not available for Windows images")
	case f == Windows2022 && in.TrustedLaunch:
		return "", newError(ErrUnsupported, fieldImageFamily, in.Requested,
			"Windows2022 has no trusted-launch image; use Windows2025 or disable secure boot and vTPM")
	case f == Windows2025:
		if err := requireVersion(in.KubernetesVersion, windows2025MinimumMinor, in.Requested); err != nil {
			return "", err
		}
	}
	return f, nil
}

// requireVersion fails unless version >= 1.minor; an unparseable version fails too, because the gate
// cannot be checked.
func requireVersion(version string, minor int, family string) error {
	v, err := kubever.Parse(version)
	if err != nil {
		return newError(ErrInvalid, "kubernetesVersion", version, "%s needs a Kubernetes version to check against 1.%d: %v",
			family, minor, err)
	}
	if !v.AtLeast(1, minor) {
		return newError(ErrUnsupported, fieldImageFamily, family, "needs Kubernetes 1.%d or newer, cluster runs %s",
			minor, version)
	}
	return nil
}

// versionAtLeast is a lenient gate: an unparseable version counts as older.
func versionAtLeast(version string, minor int) bool {
	v, err := kubever.Parse(version)
	return err == nil && v.AtLeast(1, minor)
}

func isTrue(b *bool) bool { return b != nil && *b }
