package imagefamily_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
)

// TestResolveLocalDNSState follows upstream's status reconciler: Required and Disabled resolve
// directly; Preferred needs Kubernetes 1.99 or newer, a CNI, no conflicting network policy and no
// node-local-dns DaemonSet, and once Enabled stays Enabled.
// upstream: pkg/controllers/nodeclass/status/localdns.go (LocalDNSReconciler,
// localDNSPreferredK8sVersionThreshold = "1.99.0")
func TestResolveLocalDNSState(t *testing.T) {
	class := func(mode api.LocalDNSMode, state string) *api.AKSNodeClass {
		nc := nodeClass(api.AKSNodeClassSpec{LocalDNS: &api.LocalDNS{Mode: mode}})
		nc.Status.LocalDNSState = state
		return nc
	}
	azure := api.DefaultClusterNetwork()
	byo := azure
	byo.Plugin = api.NetworkPluginNone
	tests := []struct {
		name string
		in   imagefamily.LocalDNSStateInput
		want string
	}{
		{"no localDNS", imagefamily.LocalDNSStateInput{NodeClass: nodeClass(api.AKSNodeClassSpec{}), KubernetesVersion: "1.99.0", Network: azure}, api.LocalDNSStateDisabled},
		{"Required", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModeRequired, ""), KubernetesVersion: "1.33.2", Network: azure}, api.LocalDNSStateEnabled},
		{"Disabled", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModeDisabled, api.LocalDNSStateEnabled), KubernetesVersion: "1.99.0", Network: azure}, api.LocalDNSStateDisabled},
		{"Preferred below threshold", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.35.1", Network: azure}, api.LocalDNSStateDisabled},
		{"Preferred at threshold", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.99.0", Network: azure, ClusterChecked: true}, api.LocalDNSStateEnabled},
		{"Preferred cluster not checked", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.99.0", Network: azure}, api.LocalDNSStateDisabled},
		{"Preferred BYO CNI", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.99.0", Network: byo, ClusterChecked: true}, api.LocalDNSStateDisabled},
		{"Preferred network policy", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.99.0", Network: azure, ClusterChecked: true, ConflictingNetworkPolicies: true}, api.LocalDNSStateDisabled},
		{"Preferred node-local-dns", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "1.99.0", Network: azure, ClusterChecked: true, NodeLocalDNSDaemonSet: true}, api.LocalDNSStateDisabled},
		{"Preferred sticky", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, api.LocalDNSStateEnabled), KubernetesVersion: "1.33.2", Network: azure, NodeLocalDNSDaemonSet: true}, api.LocalDNSStateEnabled},
		{"Preferred bad version", imagefamily.LocalDNSStateInput{NodeClass: class(api.LocalDNSModePreferred, ""), KubernetesVersion: "latest", Network: azure}, api.LocalDNSStateDisabled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, imagefamily.ResolveLocalDNSState(tc.in))
		})
	}
}

// TestLocalDNSPerNodeClass: the resolved state decides the label and the profile the payload carries
// (Preferred never goes on the wire); a node whose LocalDNS is enabled but cannot be is refused, never
// labelled enabled.
// upstream: pkg/apis/v1beta1/aksnodeclass.go (IsLocalDNSEnabled, ResolvedLocalDNSForWire),
// pkg/providers/labels/labels.go (localdns-state), pkg/providers/instance/aksmachineinstancehelpers.go
// (configureLocalDNSProfile), pkg/providers/imagefamily/customscriptsbootstrap/utils.go
// (convertLocalDNSToModel)
func TestLocalDNSPerNodeClass(t *testing.T) {
	overrides := []api.LocalDNSZoneOverride{
		{Zone: ".", ForwardDestination: api.LocalDNSForwardVnetDNS, CacheDuration: api.NewDuration(3600e9)},
		{Zone: "cluster.local", ForwardDestination: api.LocalDNSForwardClusterCoreDNS, Protocol: "ForceTCP"},
	}
	tests := []struct {
		name     string
		mode     imagefamily.Mode
		localDNS api.LocalDNSMode
		state    string
		shape    imagefamily.NodeShape
		label    string
		wireMode string // "" means no profile in the payload
		errField string
	}{
		{"bootstrappingclient Required", imagefamily.ModeBootstrappingClient, api.LocalDNSModeRequired, "", shapeD16plds(), "enabled", "Required", ""},
		{"bootstrappingclient Preferred unresolved", imagefamily.ModeBootstrappingClient, api.LocalDNSModePreferred, "", shapeD16plds(), "disabled", "Disabled", ""},
		{"machine API Preferred resolved", imagefamily.ModeMachineAPI, api.LocalDNSModePreferred, api.LocalDNSStateEnabled, shapeD16plds(), "enabled", "Required", ""},
		{"machine API Disabled", imagefamily.ModeMachineAPI, api.LocalDNSModeDisabled, "", shapeD16plds(), "disabled", "Disabled", ""},
		{"scriptless Preferred unresolved", imagefamily.ModeScriptless, api.LocalDNSModePreferred, "", shapeD16plds(), "disabled", "", ""},
		{"scriptless Required refused", imagefamily.ModeScriptless, api.LocalDNSModeRequired, "", shapeD16plds(), "", "", "spec.localDNS.mode"},
		{"too small refused", imagefamily.ModeBootstrappingClient, api.LocalDNSModeRequired, "", shapeD2sV3(), "", "", "shape.SKUName"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := withMode(azureLinuxInput(tc.shape), tc.mode)
			in.NodeClass.Spec.LocalDNS = &api.LocalDNS{Mode: tc.localDNS, VnetDNSOverrides: overrides[:1], KubeDNSOverrides: overrides[1:]}
			in.NodeClass.Status.LocalDNSState = tc.state
			if tc.mode.IsMachineAPI() {
				in.Images.Gallery = imagefamily.SharedImageGallery
			}
			out, err := imagefamily.Generate(in)
			if tc.errField != "" {
				var fe *api.FieldError
				require.True(t, errors.As(err, &fe), "%v", err)
				assert.Equal(t, tc.errField, fe.Field)
				assert.ErrorIs(t, err, imagefamily.ErrUnsupported)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.label, out.NodeLabels[imagefamily.LabelLocalDNSState])
			var body struct {
				ProvisionProfile struct {
					LocalDNSProfile *localDNSWire `json:"localDNSProfile"`
				} `json:"provisionProfile"`
				Properties struct {
					LocalDNSProfile *localDNSWire `json:"localDNSProfile"`
				} `json:"properties"`
			}
			if tc.mode != imagefamily.ModeScriptless {
				require.NoError(t, json.Unmarshal(out.Payload.RedactedBytes(), &body))
			}
			profile := body.ProvisionProfile.LocalDNSProfile
			if profile == nil {
				profile = body.Properties.LocalDNSProfile
			}
			if tc.wireMode == "" {
				assert.Nil(t, profile)
				return
			}
			require.NotNil(t, profile)
			assert.Equal(t, tc.wireMode, profile.Mode)
			assert.Equal(t, int32(3600), *profile.VnetDNSOverrides["."].CacheDurationInSeconds)
			assert.Equal(t, "ForceTCP", profile.KubeDNSOverrides["cluster.local"].Protocol)
		})
	}
}

type localDNSWire struct {
	Mode             string `json:"mode"`
	VnetDNSOverrides map[string]struct {
		CacheDurationInSeconds *int32 `json:"cacheDurationInSeconds"`
	} `json:"vnetDNSOverrides"`
	KubeDNSOverrides map[string]struct {
		Protocol string `json:"protocol"`
	} `json:"kubeDNSOverrides"`
}
