package controller

import (
	"encoding/pem"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/launch/azuresim"
)

// Config.ProvisionMode: the VM and Machine API modes are taken; bootstrappingclient (which needs a
// client of AKS's node-bootstrapping service the controller does not have) and unknown modes are
// refused by name, rather than failing every launch later.
func TestConfigValidatesProvisionMode(t *testing.T) {
	tests := []struct {
		mode    imagefamily.Mode
		wantErr string
	}{
		{mode: ""}, {mode: imagefamily.ModeScriptless}, {mode: imagefamily.ModeMachineAPI}, {mode: imagefamily.ModeMachineAPIHeaderBatch},
		{mode: imagefamily.ModeBootstrappingClient, wantErr: "ProvisionMode bootstrappingclient: the controller has no node-bootstrapping client"},
		{mode: "vmss", wantErr: "ProvisionMode: "},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			cfg := validConfig(t)
			cfg.ProvisionMode = tt.mode
			err := cfg.validate()
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// validConfig is a Config validate accepts.
func validConfig(t *testing.T) Config {
	t.Helper()
	_, launcher := terminateSim(t)
	return Config{
		Kube: kubefake.NewClientset(), Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), ListKinds()),
		Launcher: launcher, ClusterName: "napkit", SSHPublicKey: "ssh-ed25519 AAAA test",
		Catalogue: func(*api.AKSNodeClass) (*instancetype.Catalogue, error) { return &instancetype.Catalogue{}, nil },
		Cluster:   validCluster(), Clock: func() time.Time { return testNow }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}.withDefaults()
}

// validCluster is a bootstrap.Cluster its Validate accepts (a PEM frame is all it checks of the CA).
func validCluster() bootstrap.Cluster {
	sub := azuresim.DefaultSubscriptionID
	return bootstrap.Cluster{
		ClusterName: "napkit", KubernetesVersion: "1.33.2", APIServerHost: "napkit-dns-00000000.hcp.eastus.azmk8s.io",
		CACertificate:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("ca-der")}),
		BootstrapToken: bootstrap.NewSecret("abcdef.0123456789abcdef"), TenantID: "00000000-0000-0000-0000-000000000000",
		SubscriptionID: sub, NodeResourceGroup: "MC_napkit_napkit_eastus", Location: "eastus",
		SubnetID: "/subscriptions/" + sub + "/resourceGroups/MC_napkit_napkit_eastus/providers/Microsoft.Network/virtualNetworks/v/subnets/s",
		Network:  api.DefaultClusterNetwork(),
	}
}
