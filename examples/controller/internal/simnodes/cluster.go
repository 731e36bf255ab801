package simnodes

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch/azuresim"
)

// Cluster returns placeholder cluster settings for nodes on the simulated Azure: syntactically
// valid (bootstrap data renders as for a real cluster) and fixed, so runs are reproducible. The
// CA and SSH key come from an all-zero Ed25519 seed; nothing secret is in them.
func Cluster(clusterName, region, resourceGroup string) (bootstrap.Cluster, string, error) {
	ca, err := placeholderCA()
	if err != nil {
		return bootstrap.Cluster{}, "", err
	}
	sub := azuresim.DefaultSubscriptionID
	return bootstrap.Cluster{
		ClusterName: clusterName, KubernetesVersion: "1.33.2", APIServerHost: clusterName + "-dns-00000000.hcp." + region + ".azmk8s.io",
		CACertificate: ca, BootstrapToken: bootstrap.NewSecret("abcdef.0123456789abcdef"),
		TenantID: "00000000-0000-0000-0000-000000000000", SubscriptionID: sub, NodeResourceGroup: resourceGroup,
		Location: region, VNETGUID: "00000000-0000-0000-0000-000000000001", ClusterID: "00000000",
		SubnetID: "/subscriptions/" + sub + "/resourceGroups/" + resourceGroup +
			"/providers/Microsoft.Network/virtualNetworks/aks-vnet-00000000/subnets/aks-subnet",
		KubeletIdentityClientID: "00000000-0000-0000-0000-000000000002",
		Network:                 api.DefaultClusterNetwork(), ClusterDNS: "10.0.0.10",
	}, sshPublicKey(), nil
}

// KubeletIdentity is the resource ID of the simulated cluster's kubelet identity, which every node VM
// gets as a user-assigned identity.
func KubeletIdentity(clusterName, resourceGroup string) string {
	return "/subscriptions/" + azuresim.DefaultSubscriptionID + "/resourceGroups/" + resourceGroup +
		"/providers/Microsoft.ManagedIdentity/userAssignedIdentities/" + clusterName + "-agentpool"
}

func placeholderKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
}

// placeholderCA is a self-signed certificate; Ed25519 signs deterministically, so it never changes.
func placeholderCA() ([]byte, error) {
	key := placeholderKey()
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "napkit simulated cluster CA"},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, template, template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("placeholder CA: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// sshPublicKey is the placeholder key in authorized_keys form (RFC 8709 wire encoding).
func sshPublicKey() string {
	const kind = "ssh-ed25519"
	pub := placeholderKey().Public().(ed25519.PublicKey)
	var wire []byte
	for _, field := range [][]byte{[]byte(kind), pub} {
		wire = binary.BigEndian.AppendUint32(wire, uint32(len(field)))
		wire = append(wire, field...)
	}
	return kind + " " + base64.StdEncoding.EncodeToString(wire) + " napkit-simulated"
}
