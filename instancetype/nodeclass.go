package instancetype

import (
	"github.com/napkit/napkit/api"
)

// OS disk size bounds, as the AKSNodeClass CRD defines them (the default is api.DefaultOSDiskSizeGB).
const (
	minOSDiskSizeGB = 30
	maxOSDiskSizeGB = 2048
)

// Values of the kubernetes.azure.com/os-sku label.
const (
	OSSKUUbuntu     = "Ubuntu"
	OSSKUAzureLinux = "AzureLinux"
)

// nodeClassSettings is what the catalogue reads from an AKSNodeClass, defaults applied.
type nodeClassSettings struct {
	osFamily          string // OSUbuntu or OSAzureLinux: the GPU driver stack to look for
	osSKU             string // kubernetes.azure.com/os-sku
	fips              bool
	osDiskSizeGB      int64
	encryptionAtHost  bool
	trustedLaunch     bool // secureBoot or vTPM
	artifactStreaming bool // only when explicitly enabled
	gpuDriver         bool // gpu.mode Driver (the default): AKS installs the GPU driver
	localDNS          bool // LocalDNS enabled (AKSNodeClass.LocalDNSEnabled)
}

// resolveNodeClass applies the CRD defaults to nc (nil means all defaults) and checks the settings the
// catalogue depends on.
func resolveNodeClass(nc *api.AKSNodeClass) (nodeClassSettings, error) {
	s := nodeClassSettings{
		osDiskSizeGB: int64(api.DefaultOSDiskSizeGB),
		gpuDriver:    api.DefaultGPUMode == api.GPUModeDriver,
	}
	if nc == nil {
		s.osFamily, s.osSKU = OSUbuntu, OSSKUUbuntu
		return s, nil
	}
	spec := &nc.Spec
	var err error
	if s.osFamily, s.osSKU, err = imageOS(spec.ImageFamily); err != nil {
		return s, err
	}
	if spec.OSDiskSizeGB != nil {
		size := *spec.OSDiskSizeGB
		if size < minOSDiskSizeGB || size > maxOSDiskSizeGB {
			return s, optionErr("NodeClass.spec.osDiskSizeGB", size, "must be between 30 and 2048")
		}
		s.osDiskSizeGB = int64(size)
	}
	s.fips = spec.FIPSMode != nil && *spec.FIPSMode == api.FIPSModeFIPS
	if sec := spec.Security; sec != nil {
		s.encryptionAtHost = isTrue(sec.EncryptionAtHost)
		s.trustedLaunch = isTrue(sec.SecureBoot) || isTrue(sec.VTPM)
	}
	s.artifactStreaming = spec.ArtifactStreaming != nil && isTrue(spec.ArtifactStreaming.Enabled)
	if spec.GPU != nil && spec.GPU.Mode != nil {
		s.gpuDriver = *spec.GPU.Mode == api.GPUModeDriver
	}
	s.localDNS = nc.LocalDNSEnabled()
	return s, nil
}

// imageOS maps spec.imageFamily to the OS family GPU support is listed under and to the os-sku label.
// Windows families are rejected: this catalogue describes Linux nodes (kubernetes.io/os=linux, Linux GPU
// drivers).
func imageOS(family *string) (osFamily, osSKU string, err error) {
	f := ""
	if family != nil {
		f = *family
	}
	switch f {
	case "", api.ImageFamilyUbuntu, api.ImageFamilyUbuntu2204, api.ImageFamilyUbuntu2404:
		return OSUbuntu, OSSKUUbuntu, nil
	case api.ImageFamilyAzureLinux:
		return OSAzureLinux, OSSKUAzureLinux, nil
	}
	return "", "", optionErr("NodeClass.spec.imageFamily", f,
		"must be Ubuntu, Ubuntu2204, Ubuntu2404 or AzureLinux (the catalogue describes Linux nodes)")
}

func isTrue(b *bool) bool { return b != nil && *b }
