package bootstrap

import (
	"encoding/pem"
	"errors"
	"net/netip"
	"regexp"
	"strings"

	"github.com/napkit/napkit/api"
	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultCloud is the Azure cloud a node targets when Cluster.Cloud is empty.
const DefaultCloud = "AzurePublicCloud"

// Cluster holds the cluster-wide settings every node's bootstrap data needs. It comes from the
// cluster (the controller's options or the CLI's flags), not from a manifest.
//
// BootstrapToken is a Secret, so a Cluster may be printed or logged as it is.
type Cluster struct {
	// ClusterName is the AKS cluster's name; it tags the resources napkit creates.
	ClusterName string
	// KubernetesVersion is the control plane version, e.g. "1.33.2".
	KubernetesVersion string
	// APIServerHost is the API server's host name or IP address, without scheme or port.
	APIServerHost string
	// CACertificate is the cluster CA certificate, PEM-encoded.
	CACertificate []byte
	// BootstrapToken is the TLS bootstrap token ("<id>.<secret>") the kubelet uses to get its
	// client certificate.
	BootstrapToken Secret
	// TenantID and SubscriptionID identify where the nodes live.
	TenantID       string
	SubscriptionID string
	// NodeResourceGroup is the resource group holding the nodes (MC_...).
	NodeResourceGroup string
	// Location is the Azure region, e.g. eastus.
	Location string
	// SubnetID is the node subnet's ARM ID.
	SubnetID string
	// VNETGUID is the resourceGuid of the node virtual network (labels overlay nodes).
	VNETGUID string
	// ClusterID is the 8-digit number in the names of AKS-managed resources (aks-agentpool-<id>-nsg).
	ClusterID string
	// KubeletIdentityClientID is the client ID of the kubelet's managed identity.
	KubeletIdentityClientID string
	// Network is the cluster's network configuration.
	Network api.ClusterNetwork
	// ClusterDNS is the cluster DNS service IP; "" lets kubeletconfig use its default.
	ClusterDNS string
	// Cloud is the Azure cloud name; "" means DefaultCloud.
	Cloud string
}

var (
	guidPattern          = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	resourceNamePattern  = regexp.MustCompile(`^[-\w.()]{1,90}$`)
	locationPattern      = regexp.MustCompile(`^[a-z0-9]{1,40}$`)
	clusterIDPattern     = regexp.MustCompile(`^[0-9]{8}$`)
	cloudNamePattern     = regexp.MustCompile(`^[A-Za-z]{1,40}$`)
	kubeVersionCharClass = regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`)
)

// Validate checks every setting against the syntax Azure and Kubernetes give it. Values are quoted
// in the script anyway; the strict syntax also keeps them harmless for the node image's own scripts,
// which use some of them unquoted. All problems are reported; the token's value never is.
func (c Cluster) Validate() error {
	errs := []error{
		match("cluster name", c.ClusterName, resourceNamePattern, true),
		validateHost(c.APIServerHost),
		validateCA(c.CACertificate),
		validateToken("bootstrap token", c.BootstrapToken),
		// Optional here: a controller discovers it from the API server and checks it there.
		match("Kubernetes version", c.KubernetesVersion, kubeVersionCharClass, true),
		match("tenant ID", c.TenantID, guidPattern, false),
		match("subscription ID", c.SubscriptionID, guidPattern, false),
		match("node resource group", c.NodeResourceGroup, resourceNamePattern, false),
		match("location", c.Location, locationPattern, false),
		validateSubnetID(c.SubnetID),
		match("VNET GUID", c.VNETGUID, guidPattern, true),
		match("cluster ID", c.ClusterID, clusterIDPattern, true),
		match("kubelet identity client ID", c.KubeletIdentityClientID, guidPattern, true),
		match("cloud", c.Cloud, cloudNamePattern, true),
		validateIP("cluster DNS", c.ClusterDNS, true),
	}
	return errors.Join(errs...)
}

func match(field, value string, re *regexp.Regexp, optional bool) error {
	if (optional && value == "") || re.MatchString(value) {
		return nil
	}
	return invalid(field, value, "must match %s", re)
}

func validateHost(host string) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	if msgs := validation.IsDNS1123Subdomain(host); len(msgs) > 0 {
		return invalid("API server host", host, "must be a DNS name or IP address: %s", strings.Join(msgs, "; "))
	}
	return nil
}

func validateIP(field, ip string, optional bool) error {
	if optional && ip == "" {
		return nil
	}
	if _, err := netip.ParseAddr(ip); err != nil {
		return invalid(field, ip, "must be an IP address")
	}
	return nil
}

// validateCA checks that the CA is one PEM certificate block. The DER inside is the cluster's
// business; a PEM frame is enough to keep the value to base64 and dashes.
func validateCA(pemBytes []byte) error {
	block, rest := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE" || len(strings.TrimSpace(string(rest))) > 0 {
		return invalid("cluster CA certificate", nil, "must be exactly one PEM CERTIFICATE block")
	}
	return nil
}

func validateSubnetID(id string) error {
	s, err := ParseSubnetID(id)
	if err != nil {
		return err
	}
	for _, part := range []string{s.ResourceGroup, s.VirtualNetwork, s.Name} {
		if !resourceNamePattern.MatchString(part) {
			return invalid("subnet ID", id, "segment %q is not an Azure resource name", part)
		}
	}
	return match("subnet ID subscription", s.SubscriptionID, guidPattern, false)
}

// cloud returns Cloud or DefaultCloud.
func (c Cluster) cloud() string {
	if c.Cloud == "" {
		return DefaultCloud
	}
	return c.Cloud
}
