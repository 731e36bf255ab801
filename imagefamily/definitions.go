package imagefamily

import "github.com/napkit/napkit/api"

// Variant is the image flavour within a family: plain, trusted launch (secure boot / vTPM), FIPS, or
// both. Each has its own image definitions.
type Variant string

// The variants.
const (
	VariantStandard          Variant = "Standard"
	VariantTrustedLaunch     Variant = "TrustedLaunch"
	VariantFIPS              Variant = "FIPS"
	VariantFIPSTrustedLaunch Variant = "FIPSTrustedLaunch"
)

// VariantOf returns the variant for the node class's FIPS and trusted-launch settings.
func VariantOf(fips, trustedLaunch bool) Variant {
	switch {
	case fips && trustedLaunch:
		return VariantFIPSTrustedLaunch
	case fips:
		return VariantFIPS
	case trustedLaunch:
		return VariantTrustedLaunch
	default:
		return VariantStandard
	}
}

// Hyper-V generations as the catalogue and the sku-hyperv-generation label spell them.
const (
	HyperVGen1 = "1"
	HyperVGen2 = "2"
)

// Definition is one gallery image definition and the VMs it can boot.
type Definition struct {
	// Name is the gallery image definition, e.g. 2204gen2containerd.
	Name string `json:"name"`
	// Arch is the kubernetes.io/arch the image is built for.
	Arch string `json:"arch"`
	// HyperVGeneration is "1" or "2"; a VM size must support it to boot the image.
	HyperVGeneration string `json:"hyperVGeneration"`
	// Distro is the name the AKS node bootstrapping service knows the image by.
	Distro string `json:"distro"`
}

// Definitions returns the image definitions of a family and variant in priority order (reference
// table 5.2): the first one matching a VM size's architecture and generations wins. Gen2 comes before
// Gen1 so that a size supporting both boots the newer, UEFI-based image. The slice is new on every
// call; an empty result means the variant does not exist for the family.
func Definitions(f Family, v Variant) []Definition {
	switch f {
	case Ubuntu2004:
		return ubuntu2004(v)
	case Ubuntu2204:
		return ubuntu2204(v)
	case Ubuntu2404:
		return ubuntu2404(v)
	case AzureLinux2:
		return azureLinux("V2", "v2", v)
	case AzureLinux3:
		return azureLinux("V3", "v3", v)
	case Windows2022:
		return windows2022(v)
	case Windows2025:
		return windows2025(v)
	default:
		return nil
	}
}

// Ubuntu 20.04 is kept for FIPS only.
func ubuntu2004(v Variant) []Definition {
	if v != VariantFIPS {
		return nil
	}
	return []Definition{
		{"2004gen2fipscontainerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-fips-containerd-20.04-gen2"},
		{"2004fipscontainerd", api.ArchAMD64, HyperVGen1, "aks-ubuntu-fips-containerd-20.04"},
	}
}

func ubuntu2204(v Variant) []Definition {
	switch v {
	case VariantStandard:
		return []Definition{
			{"2204gen2containerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-containerd-22.04-gen2"},
			{"2204containerd", api.ArchAMD64, HyperVGen1, "aks-ubuntu-containerd-22.04"},
			{"2204gen2arm64containerd", api.ArchARM64, HyperVGen2, "aks-ubuntu-arm64-containerd-22.04-gen2"},
		}
	case VariantTrustedLaunch:
		return []Definition{{"2204gen2TLcontainerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-containerd-22.04-tl-gen2"}}
	case VariantFIPSTrustedLaunch:
		return []Definition{{"2204gen2fipsTLcontainerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-fips-containerd-22.04-tl-gen2"}}
	default:
		return nil
	}
}

func ubuntu2404(v Variant) []Definition {
	switch v {
	case VariantStandard:
		return []Definition{
			{"2404gen2containerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-containerd-24.04-gen2"},
			{"2404containerd", api.ArchAMD64, HyperVGen1, "aks-ubuntu-containerd-24.04"},
			{"2404gen2arm64containerd", api.ArchARM64, HyperVGen2, "aks-ubuntu-arm64-containerd-24.04-gen2"},
		}
	case VariantTrustedLaunch:
		return []Definition{{"2404gen2TLcontainerd", api.ArchAMD64, HyperVGen2, "aks-ubuntu-containerd-24.04-tl-gen2"}}
	default:
		return nil
	}
}

// azureLinux builds the Azure Linux 2 or 3 table; the two releases differ only in their prefix,
// except that only 3 publishes an arm64 FIPS image.
func azureLinux(prefix, distro string, v Variant) []Definition {
	d := "aks-azurelinux-" + distro
	switch v {
	case VariantStandard:
		return []Definition{
			{prefix + "gen2", api.ArchAMD64, HyperVGen2, d + "-gen2"},
			{prefix, api.ArchAMD64, HyperVGen1, d},
			{prefix + "gen2arm64", api.ArchARM64, HyperVGen2, d + "-arm64-gen2"},
		}
	case VariantTrustedLaunch:
		return []Definition{{prefix + "gen2TL", api.ArchAMD64, HyperVGen2, d + "-gen2-tl"}}
	case VariantFIPS:
		defs := []Definition{
			{prefix + "gen2fips", api.ArchAMD64, HyperVGen2, d + "-gen2-fips"},
			{prefix + "fips", api.ArchAMD64, HyperVGen1, d + "-fips"},
		}
		if prefix == "V3" {
			defs = append(defs, Definition{prefix + "gen2arm64fips", api.ArchARM64, HyperVGen2, d + "-arm64-gen2-fips"})
		}
		return defs
	default:
		return nil
	}
}

func windows2022(v Variant) []Definition {
	if v != VariantStandard {
		return nil
	}
	return []Definition{
		{"windows-2022-containerd-gen2", api.ArchAMD64, HyperVGen2, "aks-windows-2022-containerd-gen2"},
		{"windows-2022-containerd", api.ArchAMD64, HyperVGen1, "aks-windows-2022-containerd"},
	}
}

func windows2025(v Variant) []Definition {
	switch v {
	case VariantStandard:
		return []Definition{
			{"windows-2025-gen2", api.ArchAMD64, HyperVGen2, "aks-windows-2025-gen2"},
			{"windows-2025", api.ArchAMD64, HyperVGen1, "aks-windows-2025"},
		}
	case VariantTrustedLaunch:
		return []Definition{{"windows-2025-gen2-tl", api.ArchAMD64, HyperVGen2, "aks-windows-2025-gen2-tl"}}
	default:
		return nil
	}
}
