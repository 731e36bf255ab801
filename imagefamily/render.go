package imagefamily

import (
	"maps"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// renderScriptless renders the aksscriptless customData: kubelet flags from kubeletconfig, every
// taint registered by the kubelet, and the labels the kubelet may set.
func renderScriptless(p *plan, out *Output) error {
	s, err := bootstrap.RenderScriptless(bootstrap.ScriptlessInput{
		Cluster: p.in.Cluster, Arch: p.in.Shape.Arch, KubeletFlags: out.KubeletFlags,
		Labels: p.labels, Taints: out.Taints, GPU: p.gpu,
	})
	if err != nil {
		return err
	}
	out.KubeletFlags = s.KubeletFlags
	out.Payload, out.CustomData = s.Script, s.CustomData
	return nil
}

// renderProvision builds the bootstrappingclient request body.
func renderProvision(p *plan, out *Output) error {
	secureBoot, vtpm, _ := securitySettings(p.in.NodeClass)
	var linuxOS *api.LinuxOSConfiguration
	if p.in.NodeClass != nil {
		linuxOS = p.in.NodeClass.Spec.LinuxOSConfig
	}
	values, err := bootstrap.BuildProvisionValues(bootstrap.ProvisionInput{
		Cluster: p.in.Cluster, Arch: p.in.Shape.Arch, OSSKU: p.image.Family.OSSKU(),
		Distro: p.image.Definition.Distro, VMSize: p.in.Shape.SKUName, Labels: p.labels,
		Taints: p.taints, StartupTaints: p.startup, MaxPods: p.maxPods, FIPS: p.family.FIPS,
		SecureBoot: secureBoot, VTPM: vtpm, EphemeralOSDisk: p.in.Shape.EphemeralOSDisk,
		ArtifactStreaming: artifactStreaming(p.in.NodeClass) && p.in.Shape.Arch != api.ArchARM64,
		Kubelet:           bootstrap.KubeletConfigFor(p.kubelet), LinuxOSConfig: linuxOS, GPU: p.gpu,
		LocalDNS: p.localDNS,
		SKUCPU:   float64(p.in.Shape.VCPUs), SKUMemoryGiB: p.in.Shape.MemoryGiB,
	})
	if err != nil {
		return err
	}
	body, err := values.JSON()
	if err != nil {
		return err
	}
	out.Provision = values
	out.Payload = bootstrap.NewPublicPayload(bootstrap.ContentTypeJSON, body)
	return nil
}

// renderMachine builds the AKS Machine body; AKS applies every label and taint itself.
func renderMachine(p *plan, out *Output) error {
	nodeImageVersion, err := p.image.Reference.NodeImageVersion()
	if err != nil {
		return err
	}
	secureBoot, vtpm, encryption := securitySettings(p.in.NodeClass)
	var install *bool
	if p.in.Shape.GPU != nil { // any listed GPU size: Install with gpu.mode Driver, else None
		v := p.gpu != nil
		install = &v
	}
	var linuxOS *api.LinuxOSConfiguration
	if p.in.NodeClass != nil {
		linuxOS = p.in.NodeClass.Spec.LinuxOSConfig
	}
	osType := "Linux"
	if p.image.Family.IsWindows() {
		osType = "Windows"
	}
	m, err := bootstrap.BuildMachine(bootstrap.MachineInput{
		VMSize: p.in.Shape.SKUName, Zones: armZones(p.in.Zone), Spot: p.in.isSpot(),
		OSType: osType, OSSKU: p.image.Family.OSSKU(), OSDiskSizeGB: osDiskSizeGB(p.in.NodeClass),
		EphemeralOSDisk: p.in.Shape.EphemeralOSDisk, FIPS: p.family.FIPS,
		NodeImageVersion: nodeImageVersion, OrchestratorVersion: p.in.Cluster.KubernetesVersion,
		MaxPods: p.maxPods, Labels: p.labels, Taints: out.Taints,
		Kubelet: bootstrap.KubeletConfigFor(p.kubelet), SubnetID: p.in.Cluster.SubnetID,
		SecureBoot: secureBoot, VTPM: vtpm, EncryptionAtHost: encryption,
		ArtifactStreaming: artifactStreaming(p.in.NodeClass) && p.in.Shape.Arch != api.ArchARM64,
		InstallGPUDriver:  install, Tags: machineTags(p, osType),
		UltraSSD: p.in.UltraSSD, LinuxOSConfig: linuxOS, LocalDNS: p.localDNS,
	})
	if err != nil {
		return err
	}
	body, err := m.JSON()
	if err != nil {
		return err
	}
	out.MachineName = bootstrap.MachineName(p.in.NodeClaim)
	out.Machine = m
	out.Payload = bootstrap.NewPublicPayload(bootstrap.ContentTypeJSON, body)
	return nil
}

// machineTags are the node class's tags under napkit's own, with "/" (not allowed in Azure tag
// names) replaced by "_". napkit's tags win: garbage collection and billing depend on them.
func machineTags(p *plan, osType string) map[string]string {
	tags := map[string]string{}
	if p.in.NodeClass != nil {
		for k, v := range p.in.NodeClass.Spec.Tags {
			tags[strings.ReplaceAll(k, "/", "_")] = v
		}
	}
	own := map[string]string{"compute.aks.billing": strings.ToLower(osType)}
	if p.in.Cluster.ClusterName != "" {
		own["karpenter.azure.com_cluster"] = p.in.Cluster.ClusterName
	}
	if p.in.NodePool != "" {
		own["karpenter.sh_nodepool"] = p.in.NodePool
	}
	if p.in.NodeClaim != "" {
		own[bootstrap.TagNodeClaim] = p.in.NodeClaim
	}
	maps.Copy(tags, own)
	return tags
}
