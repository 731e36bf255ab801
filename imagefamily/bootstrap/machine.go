package bootstrap

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/napkit/napkit/api"
)

// MachineInput is what an AKS Machine resource is built from.
type MachineInput struct {
	// VMSize is the SKU name, e.g. Standard_D4s_v5.
	VMSize string
	// Zones is the availability zone number ("1"), or empty for a regional machine.
	Zones []string
	// Spot asks for spot capacity (evicted by deletion, paying up to the on-demand price).
	Spot bool
	// OSType is Linux or Windows; OSSKU is Ubuntu, AzureLinux, Windows2022 or Windows2025.
	OSType string
	OSSKU  string
	// OSDiskSizeGB is the OS disk size; EphemeralOSDisk puts it on local storage.
	OSDiskSizeGB    int32
	EphemeralOSDisk bool
	FIPS            bool
	// NodeImageVersion is the shared image gallery version (NodeImageVersion of the image ID).
	NodeImageVersion    string
	OrchestratorVersion string
	MaxPods             int32
	// Labels are all node labels. AKS applies them itself; those in the kubernetes.io and k8s.io
	// domains are left out (see MachineLabels), because the kubelet and the cloud provider own them.
	Labels map[string]string
	// Taints are all taints, startup taints included; all become initialization taints so that AKS
	// removes none of them (Karpenter owns their lifecycle).
	Taints            []corev1.Taint
	Kubelet           *CustomKubeletConfig
	SubnetID          string
	SecureBoot        bool
	VTPM              bool
	EncryptionAtHost  bool
	ArtifactStreaming bool
	// UltraSSD gives the VM the Ultra SSD capability.
	UltraSSD bool
	// LinuxOSConfig is the node class's spec.linuxOSConfig (Linux only), or nil.
	LinuxOSConfig *api.LinuxOSConfiguration
	// LocalDNS is the node class's resolved spec.localDNS (AKSNodeClass.LocalDNSForWire), or nil.
	LocalDNS *api.LocalDNS
	// InstallGPUDriver asks AKS to install the GPU driver; nil means not a GPU node.
	InstallGPUDriver *bool
	Tags             map[string]string
}

// Machine is an AKS Machine resource body (PUT .../agentPools/<pool>/machines/<name>).
type Machine struct {
	Zones      []string          `json:"zones,omitempty"`
	Properties MachineProperties `json:"properties"`
}

// MachineProperties is the machine's specification.
type MachineProperties struct {
	Hardware        MachineHardware   `json:"hardware"`
	OperatingSystem MachineOS         `json:"operatingSystem"`
	Kubernetes      MachineKubernetes `json:"kubernetes"`
	Mode            string            `json:"mode"`
	Priority        string            `json:"priority"`
	EvictionPolicy  string            `json:"evictionPolicy,omitempty"`
	BillingProfile  *MachineBilling   `json:"billingProfile,omitempty"`
	Network         MachineNetwork    `json:"network"`
	Security        MachineSecurity   `json:"security"`
	Tags            map[string]string `json:"tags,omitempty"`
	LocalDNSProfile *LocalDNSProfile  `json:"localDNSProfile,omitempty"`
}

// MachineHardware is the VM size and GPU handling.
type MachineHardware struct {
	VMSize          string             `json:"vmSize"`
	GPUProfile      *MachineGPUProfile `json:"gpuProfile,omitempty"`
	UltraSSDEnabled bool               `json:"ultraSsdEnabled"`
}

// MachineGPUProfile says whether AKS installs the GPU driver.
type MachineGPUProfile struct {
	Driver string `json:"driver"`
}

// MachineOS is the operating system and its disk.
type MachineOS struct {
	OSType       string `json:"osType"`
	OSSKU        string `json:"osSKU"`
	OSDiskSizeGB int32  `json:"osDiskSizeGB,omitempty"`
	OSDiskType   string `json:"osDiskType"`
	EnableFIPS   bool   `json:"enableFIPS"`
	// LinuxProfile carries the custom Linux OS settings; nil when the node class sets none.
	LinuxProfile *MachineLinuxProfile `json:"linuxProfile,omitempty"`
}

// MachineLinuxProfile wraps the custom Linux OS settings.
type MachineLinuxProfile struct {
	LinuxOSConfig *LinuxOSConfig `json:"linuxOSConfig"`
}

// MachineKubernetes is the node's Kubernetes configuration.
type MachineKubernetes struct {
	OrchestratorVersion      string                    `json:"orchestratorVersion"`
	NodeImageVersion         string                    `json:"nodeImageVersion"`
	MaxPods                  int32                     `json:"maxPods"`
	NodeLabels               map[string]string         `json:"nodeLabels,omitempty"`
	NodeInitializationTaints []string                  `json:"nodeInitializationTaints,omitempty"`
	KubeletConfig            *CustomKubeletConfig      `json:"kubeletConfig,omitempty"`
	ArtifactStreamingProfile *ArtifactStreamingProfile `json:"artifactStreamingProfile,omitempty"`
}

// MachineBilling caps the spot price; -1 means "up to the on-demand price".
type MachineBilling struct {
	MaxPrice float64 `json:"maxPrice"`
}

// MachineNetwork is the node subnet.
type MachineNetwork struct {
	VNETSubnetID string `json:"vnetSubnetID,omitempty"`
}

// MachineSecurity is the VM security profile.
type MachineSecurity struct {
	// SSHAccess is LocalUser for Linux machines: SSH with the cluster's admin key, as the AKS agent
	// pools Karpenter's nodes sit beside.
	SSHAccess              string `json:"sshAccess,omitempty"`
	EnableSecureBoot       bool   `json:"enableSecureBoot"`
	EnableVTPM             bool   `json:"enableVTPM"`
	EnableEncryptionAtHost bool   `json:"enableEncryptionAtHost"`
}

// BuildMachine validates the input and builds the Machine body.
func BuildMachine(in MachineInput) (*Machine, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	m := &Machine{Zones: append([]string(nil), in.Zones...), Properties: MachineProperties{
		Hardware:        MachineHardware{VMSize: in.VMSize, GPUProfile: machineGPU(in.InstallGPUDriver), UltraSSDEnabled: in.UltraSSD},
		OperatingSystem: MachineOS{OSType: in.OSType, OSSKU: in.OSSKU, OSDiskSizeGB: in.OSDiskSizeGB, OSDiskType: diskType(in.EphemeralOSDisk), EnableFIPS: in.FIPS},
		Kubernetes: MachineKubernetes{
			OrchestratorVersion: in.OrchestratorVersion, NodeImageVersion: in.NodeImageVersion, MaxPods: in.MaxPods,
			NodeLabels: MachineLabels(in.Labels), NodeInitializationTaints: formatEach(in.Taints), KubeletConfig: in.Kubelet,
		},
		Mode: agentMode(in.Labels), Priority: "Regular",
		Network:  MachineNetwork{VNETSubnetID: in.SubnetID},
		Security: MachineSecurity{EnableSecureBoot: in.SecureBoot, EnableVTPM: in.VTPM, EnableEncryptionAtHost: in.EncryptionAtHost},
		Tags:     copyMap(in.Tags), LocalDNSProfile: LocalDNSProfileFor(in.LocalDNS),
	}}
	if in.OSType == "Linux" {
		m.Properties.Security.SSHAccess = "LocalUser"
		if c := LinuxOSConfigFor(in.LinuxOSConfig); c != nil {
			m.Properties.OperatingSystem.LinuxProfile = &MachineLinuxProfile{LinuxOSConfig: c}
		}
	}
	if in.ArtifactStreaming {
		m.Properties.Kubernetes.ArtifactStreamingProfile = &ArtifactStreamingProfile{Enabled: true}
	}
	if in.Spot {
		m.Properties.Priority, m.Properties.EvictionPolicy = "Spot", "Delete"
		m.Properties.BillingProfile = &MachineBilling{MaxPrice: -1}
	}
	return m, nil
}

// JSON renders the body deterministically (encoding/json sorts map keys).
func (m *Machine) JSON() ([]byte, error) { return json.Marshal(m) }

func (in MachineInput) validate() error {
	errs := []error{ValidateLabels(in.Labels), ValidateTaints(in.Taints)}
	if in.OSType != "Linux" && in.OSType != "Windows" {
		errs = append(errs, invalid("OS type", in.OSType, "must be Linux or Windows"))
	}
	if in.NodeImageVersion == "" {
		errs = append(errs, invalid("node image version", nil, "is required: the AKS Machine API boots shared image gallery versions only"))
	}
	if in.VMSize == "" {
		errs = append(errs, invalid("VM size", nil, "is required"))
	}
	if in.MaxPods < 1 {
		errs = append(errs, invalid("maxPods", nil, "must be at least 1"))
	}
	if in.SubnetID != "" {
		errs = append(errs, validateSubnetID(in.SubnetID))
	}
	return errors.Join(errs...)
}

func diskType(ephemeral bool) string {
	if ephemeral {
		return "Ephemeral"
	}
	return "Managed"
}

func machineGPU(install *bool) *MachineGPUProfile {
	switch {
	case install == nil:
		return nil
	case *install:
		return &MachineGPUProfile{Driver: "Install"}
	default:
		return &MachineGPUProfile{Driver: "None"}
	}
}

// MachineLabels returns the labels to send to the AKS APIs: all but those in the kubernetes.io and
// k8s.io domains (and their sub-domains), which the kubelet and cloud provider set and AKS reserves.
// Karpenter still syncs them from the NodeClaim after registration.
func MachineLabels(labels map[string]string) map[string]string {
	out := copyMap(labels)
	maps.DeleteFunc(out, func(k, _ string) bool {
		domain, _, ok := strings.Cut(k, "/")
		return ok && (inDomain(domain, "kubernetes.io") || inDomain(domain, "k8s.io"))
	})
	return out
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
