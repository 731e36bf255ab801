package bootstrap

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/napkit/napkit/api"
	corev1 "k8s.io/api/core/v1"
)

// ProvisionInput is what the bootstrappingclient request is built from.
type ProvisionInput struct {
	// Cluster supplies the Kubernetes version and the subnet (the token is not sent: the service
	// returns a placeholder that Hydrate fills in).
	Cluster Cluster
	// Arch is the node's kubernetes.io/arch.
	Arch string
	// OSSKU is Ubuntu or AzureLinux; Distro is the image's distro name (Definition.Distro).
	OSSKU  string
	Distro string
	VMSize string
	// Labels are all node labels; only those a kubelet may set are sent.
	Labels map[string]string
	// Taints are applied at registration and stay; StartupTaints are removed once the node is ready.
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	MaxPods       int32
	FIPS          bool
	SecureBoot    bool
	VTPM          bool
	// EphemeralOSDisk says the OS disk is on local storage.
	EphemeralOSDisk   bool
	ArtifactStreaming bool
	Kubelet           *CustomKubeletConfig
	LinuxOSConfig     *api.LinuxOSConfiguration
	// LocalDNS is the node class's resolved spec.localDNS (AKSNodeClass.LocalDNSForWire), or nil.
	LocalDNS *api.LocalDNS
	// GPU is the NVIDIA driver to install, or nil.
	GPU *GPUDriver
	// SKUCPU and SKUMemoryGiB are the VM size's nominal vCPUs and memory (see NominalMemoryGiB).
	SKUCPU       float64
	SKUMemoryGiB float64
}

// ProvisionValues is the node bootstrapping request body.
type ProvisionValues struct {
	ProvisionProfile      ProvisionProfile      `json:"provisionProfile"`
	ProvisionHelperValues ProvisionHelperValues `json:"provisionHelperValues"`
}

// ProvisionProfile describes the node to the bootstrapping service.
type ProvisionProfile struct {
	Architecture             string                    `json:"architecture"`
	OSType                   string                    `json:"osType"`
	OSSKU                    string                    `json:"osSku"`
	VMSize                   string                    `json:"vmSize"`
	Distro                   string                    `json:"distro"`
	CustomNodeLabels         map[string]string         `json:"customNodeLabels,omitempty"`
	OrchestratorVersion      string                    `json:"orchestratorVersion"`
	VNETSubnetID             string                    `json:"vnetSubnetID"`
	StorageProfile           string                    `json:"storageProfile"`
	NodeTaints               []string                  `json:"nodeTaints,omitempty"`
	NodeInitializationTaints []string                  `json:"nodeInitializationTaints,omitempty"`
	SecurityProfile          ProvisionSecurityProfile  `json:"securityProfile"`
	MaxPods                  int32                     `json:"maxPods"`
	EnableFIPS               bool                      `json:"enableFIPS"`
	ArtifactStreamingProfile *ArtifactStreamingProfile `json:"artifactStreamingProfile,omitempty"`
	CustomKubeletConfig      *CustomKubeletConfig      `json:"customKubeletConfig,omitempty"`
	CustomLinuxOSConfig      *LinuxOSConfig            `json:"customLinuxOSConfig,omitempty"`
	LocalDNSProfile          *LocalDNSProfile          `json:"localDNSProfile,omitempty"`
	Mode                     string                    `json:"mode"`
	GPUProfile               *ProvisionGPUProfile      `json:"gpuProfile,omitempty"`
}

// ProvisionSecurityProfile is the VM security part of the profile.
type ProvisionSecurityProfile struct {
	SSHAccess        string `json:"sshAccess"`
	EnableVTPM       bool   `json:"enableVTPM"`
	EnableSecureBoot bool   `json:"enableSecureBoot"`
}

// ArtifactStreamingProfile switches on-demand image streaming.
type ArtifactStreamingProfile struct {
	Enabled bool `json:"enabled"`
}

// ProvisionGPUProfile says which NVIDIA driver family to install.
type ProvisionGPUProfile struct {
	DriverType       string `json:"driverType"`
	InstallGPUDriver bool   `json:"installGPUDriver"`
}

// ProvisionHelperValues carries the VM size's nominal shape, which the service sizes defaults from.
type ProvisionHelperValues struct {
	SKUCPU    float64 `json:"skuCPU"`
	SKUMemory float64 `json:"skuMemory"`
}

// BuildProvisionValues validates the input and builds the request (reference section 6.4).
func BuildProvisionValues(in ProvisionInput) (*ProvisionValues, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	p := ProvisionProfile{
		Architecture: armArchitecture(in.Arch), OSType: "Linux", OSSKU: in.OSSKU, VMSize: in.VMSize, Distro: in.Distro,
		CustomNodeLabels:    KubeletLabels(in.Labels),
		OrchestratorVersion: in.Cluster.KubernetesVersion, VNETSubnetID: in.Cluster.SubnetID,
		StorageProfile:           storageProfile(in.EphemeralOSDisk),
		NodeTaints:               formatEach(in.Taints),
		NodeInitializationTaints: formatEach(in.StartupTaints),
		SecurityProfile:          ProvisionSecurityProfile{SSHAccess: "LocalUser", EnableVTPM: in.VTPM, EnableSecureBoot: in.SecureBoot},
		MaxPods:                  in.MaxPods, EnableFIPS: in.FIPS,
		CustomKubeletConfig: in.Kubelet, CustomLinuxOSConfig: LinuxOSConfigFor(in.LinuxOSConfig),
		LocalDNSProfile: LocalDNSProfileFor(in.LocalDNS),
		Mode:            agentMode(in.Labels), GPUProfile: provisionGPU(in.GPU),
	}
	if in.ArtifactStreaming {
		p.ArtifactStreamingProfile = &ArtifactStreamingProfile{Enabled: true}
	}
	return &ProvisionValues{
		ProvisionProfile:      p,
		ProvisionHelperValues: ProvisionHelperValues{SKUCPU: in.SKUCPU, SKUMemory: math.Ceil(in.SKUMemoryGiB)},
	}, nil
}

// JSON renders the body; map keys are sorted by encoding/json, so the bytes are deterministic.
func (v *ProvisionValues) JSON() ([]byte, error) { return json.Marshal(v) }

func (in ProvisionInput) validate() error {
	errs := []error{validateArch(in.Arch), ValidateLabels(in.Labels), ValidateTaints(in.Taints),
		ValidateTaints(in.StartupTaints), validateSubnetID(in.Cluster.SubnetID),
		match("Kubernetes version", in.Cluster.KubernetesVersion, kubeVersionCharClass, false)}
	if in.MaxPods < 1 {
		errs = append(errs, invalid("maxPods", nil, "must be at least 1"))
	}
	return errors.Join(errs...)
}

// armArchitecture spells the architecture as Azure does.
func armArchitecture(arch string) string {
	if arch == api.ArchARM64 {
		return "Arm64"
	}
	return "x64"
}

func storageProfile(ephemeral bool) string {
	if ephemeral {
		return "Ephemeral"
	}
	return "ManagedDisks"
}

// agentMode is the AKS agent pool mode from the kubernetes.azure.com/mode label: System or User.
func agentMode(labels map[string]string) string {
	if labels[api.LabelAKSMode] == "system" {
		return "System"
	}
	return "User"
}

func provisionGPU(d *GPUDriver) *ProvisionGPUProfile {
	if d == nil {
		return nil
	}
	t := "CUDA"
	if d.Type == GPUDriverGRID || d.Type == GPUDriverGRIDv20 {
		t = "GRID"
	}
	return &ProvisionGPUProfile{DriverType: t, InstallGPUDriver: true}
}

func formatEach(taints []corev1.Taint) []string {
	if len(taints) == 0 {
		return nil
	}
	out := make([]string, len(taints))
	for i, t := range taints {
		out[i] = FormatTaint(t)
	}
	return out
}

// NominalMemoryGiB recovers a VM size's advertised memory from the capacity the catalogue reports,
// which is the advertised size minus the hypervisor overhead fraction: ceil(capacity / (1 - overhead)
// / GiB). The ceiling undoes the catalogue's rounding of the overhead up to a whole byte; the
// division is exact only to about 1e-12 GiB, so results within a millionth of a GiB above a whole
// number are taken as that number rather than rounded up to the next one.
func NominalMemoryGiB(capacityBytes int64, overheadFraction float64) float64 {
	const tolerance = 1e-6
	return math.Ceil(float64(capacityBytes)/(1-overheadFraction)/(1<<30) - tolerance)
}
