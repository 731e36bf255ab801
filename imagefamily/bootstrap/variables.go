package bootstrap

import (
	"encoding/base64"
	"strings"

	"github.com/napkit/napkit/imagefamily/internal/kubever"
)

// variable is one exported script variable; value is raw, quoting happens at render time.
type variable struct {
	name, value string
}

// tokenVariable carries the bootstrap token.
const tokenVariable = "TLS_BOOTSTRAP_TOKEN"

// Settings the AKS node image expects and napkit does not vary (reference section 6.1).
func staticVariables() []variable {
	return []variable{
		{"ADMINUSER", "azureuser"},
		{"CLI_TOOL", "ctr"},
		{"CLOUDPROVIDER_BACKOFF", "true"},
		{"CLOUDPROVIDER_BACKOFF_DURATION", "5"},
		{"CLOUDPROVIDER_BACKOFF_EXPONENT", "0"},
		{"CLOUDPROVIDER_BACKOFF_JITTER", "0"},
		{"CLOUDPROVIDER_BACKOFF_MODE", "v2"},
		{"CLOUDPROVIDER_BACKOFF_RETRIES", "6"},
		{"CLOUDPROVIDER_RATELIMIT", "true"},
		{"CLOUDPROVIDER_RATELIMIT_BUCKET", "100"},
		{"CLOUDPROVIDER_RATELIMIT_BUCKET_WRITE", "100"},
		{"CLOUDPROVIDER_RATELIMIT_QPS", "10"},
		{"CLOUDPROVIDER_RATELIMIT_QPS_WRITE", "10"},
		{"CONTAINER_RUNTIME", "containerd"},
		{"CSE_TIMEOUT", "15m"},
		{"ENABLE_IMDS_RESTRICTION", "false"},
		{"ENABLE_TLS_BOOTSTRAPPING", "true"},
		{"IS_VHD", "true"},
		{"LOAD_BALANCER_SKU", "Standard"},
		{"MAXIMUM_LOADBALANCER_RULE_COUNT", "250"},
		{"MCR_REPOSITORY_BASE", mcrRepository},
		{"NEEDS_CGROUPV2", "true"},
		{"OUTBOUND_COMMAND", "curl -v --insecure --proxy-insecure https://" + mcrRepository + "/v2/"},
		// The node authenticates to Azure with the kubelet's managed identity, never a password.
		{"SERVICE_PRINCIPAL_CLIENT_ID", "msi"},
		{"SERVICE_PRINCIPAL_FILE_CONTENT", base64.StdEncoding.EncodeToString([]byte("msi"))},
		{"SYSCTL_CONTENT", base64.StdEncoding.EncodeToString([]byte(sysctlConfig()))},
		{"VM_TYPE", "standard"},
	}
}

// scriptVariables returns every exported variable of the script; flags and labels are final.
func scriptVariables(in ScriptlessInput, flags []string, labels map[string]string) ([]variable, error) {
	c := in.Cluster
	network, err := Network(NetworkInput{Network: c.Network, KubernetesVersion: c.KubernetesVersion})
	if err != nil {
		return nil, err
	}
	downloads, err := downloadVariables(c.KubernetesVersion, in.Arch)
	if err != nil {
		return nil, err
	}
	subnet, err := ParseSubnetID(c.SubnetID)
	if err != nil {
		return nil, err
	}
	vars := append(staticVariables(), downloads...)
	vars = append(vars, gpuVariables(in.GPU)...)
	vars = append(vars, azureVariables(c, subnet)...)
	return append(vars,
		variable{"API_SERVER_NAME", c.APIServerHost},
		variable{"CONTAINERD_CONFIG_CONTENT", base64.StdEncoding.EncodeToString([]byte(containerdConfig(in.GPU != nil)))},
		variable{"KUBE_CA_CRT", base64.StdEncoding.EncodeToString(c.CACertificate)},
		variable{"KUBELET_FLAGS", strings.Join(flags, " ")},
		variable{"KUBELET_NODE_LABELS", FormatLabels(labels)},
		variable{"NETWORK_PLUGIN", network.Plugin},
		variable{"NETWORK_POLICY", network.Policy},
		variable{tokenVariable, c.BootstrapToken.Reveal()},
	), nil
}

// azureVariables are the cloud-provider settings: where the node is and what it may touch.
func azureVariables(c Cluster, subnet Subnet) []variable {
	nsg, routeTable := "", ""
	if c.ClusterID != "" {
		nsg = "aks-agentpool-" + c.ClusterID + "-nsg"
		routeTable = "aks-agentpool-" + c.ClusterID + "-routetable"
	}
	return []variable{
		{"LOCATION", c.Location},
		{"NETWORK_SECURITY_GROUP", nsg},
		{"RESOURCE_GROUP", c.NodeResourceGroup},
		{"ROUTE_TABLE", routeTable},
		{"SUBNET", subnet.Name},
		{"SUBSCRIPTION_ID", c.SubscriptionID},
		{"TARGET_CLOUD", c.cloud()},
		{"TENANT_ID", c.TenantID},
		{"USER_ASSIGNED_IDENTITY_ID", c.KubeletIdentityClientID},
		{"VIRTUAL_NETWORK", subnet.VirtualNetwork},
		{"VIRTUAL_NETWORK_RESOURCE_GROUP", subnet.ResourceGroup},
	}
}

// downloadVariables are the binary URLs, which depend on the version and architecture.
func downloadVariables(version, arch string) ([]variable, error) {
	v, err := kubever.Parse(version)
	if err != nil {
		return nil, invalid("Kubernetes version", version, "%v", err)
	}
	kube, err := KubeBinaryURL(version, arch)
	if err != nil {
		return nil, err
	}
	cred, err := CredentialProviderURL(version, arch)
	if err != nil {
		return nil, err
	}
	return []variable{
		{"CNI_PLUGINS_URL", cniPluginsURL(arch)},
		{"CREDENTIAL_PROVIDER_DOWNLOAD_URL", cred},
		{"KUBE_BINARY_URL", kube},
		{"KUBERNETES_VERSION", v.String()},
		{"VNET_CNI_PLUGINS_URL", vnetCNIURL(arch)},
	}, nil
}

// gpuVariables tell the image whether and which NVIDIA driver to install.
func gpuVariables(d *GPUDriver) []variable {
	if d == nil {
		return []variable{
			{"CONFIG_GPU_DRIVER_IF_NEEDED", "false"}, {"GPU_DRIVER_TYPE", ""},
			{"GPU_DRIVER_VERSION", ""}, {"GPU_IMAGE_SHA", ""}, {"GPU_NODE", "false"},
		}
	}
	return []variable{
		{"CONFIG_GPU_DRIVER_IF_NEEDED", "true"}, {"GPU_DRIVER_TYPE", d.Type},
		{"GPU_DRIVER_VERSION", d.Version}, {"GPU_IMAGE_SHA", d.ImageSHA}, {"GPU_NODE", "true"},
	}
}
