package app

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
)

// --provision-mode and the Machine API flags: Azure's provider's names and rules
// (Azure/karpenter-provider-azure pkg/operator/options/options.go: --provision-mode,
// --aks-machines-pool-name "Required when PROVISION_MODE is an AKS machine API mode";
// options_validation.go), plus what this controller cannot do (bootstrappingclient) and a flag
// that would be ignored.
func TestProvisionSettings(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		want      provisioning
		wantFlags []string // the flags the errors name, in order
	}{
		{name: "default", want: provisioning{mode: imagefamily.ModeScriptless}},
		{name: "machine API", args: []string{"--provision-mode=aksmachineapi", "--aks-machines-pool-name=napkit", "--cluster-resource-group=rg", "--sig-subscription-id=sig"},
			want: provisioning{mode: imagefamily.ModeMachineAPI, pool: "napkit", clusterResourceGroup: "rg", sigSubscriptionID: "sig"}},
		{name: "header batches", args: []string{"--provision-mode=aksmachineapiheaderbatch", "--aks-machines-pool-name=np2", "--cluster-resource-group=rg", "--sig-subscription-id=sig"},
			want: provisioning{mode: imagefamily.ModeMachineAPIHeaderBatch, pool: "np2", clusterResourceGroup: "rg", sigSubscriptionID: "sig"}},
		{name: "simulated cluster needs no group", args: []string{"--simulate", "--provision-mode=aksmachineapi", "--aks-machines-pool-name=napkit"},
			want: provisioning{mode: imagefamily.ModeMachineAPI, pool: "napkit"}},
		{name: "unknown mode", args: []string{"--provision-mode=vmss"}, wantFlags: []string{"--provision-mode"}},
		{name: "bootstrapping client", args: []string{"--provision-mode=bootstrappingclient"}, wantFlags: []string{"--provision-mode"}},
		{name: "machine API without pool, group or gallery", args: []string{"--provision-mode=aksmachineapi"},
			wantFlags: []string{"--aks-machines-pool-name", "--cluster-resource-group", "--sig-subscription-id"}},
		{name: "pool name AKS refuses", args: []string{"--provision-mode=aksmachineapi", "--aks-machines-pool-name=Pool-1", "--cluster-resource-group=rg", "--sig-subscription-id=sig"},
			wantFlags: []string{"--aks-machines-pool-name"}},
		{name: "pool name too long", args: []string{"--provision-mode=aksmachineapi", "--aks-machines-pool-name=abcdefghijklm", "--cluster-resource-group=rg", "--sig-subscription-id=sig"},
			wantFlags: []string{"--aks-machines-pool-name"}},
		{name: "machine flags in the VM mode", args: []string{"--aks-machines-pool-name=napkit", "--cluster-resource-group=rg", "--sig-subscription-id=sig"},
			wantFlags: []string{"--aks-machines-pool-name", "--cluster-resource-group", "--sig-subscription-id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("controller", flag.ContinueOnError)
			var f Flags
			f.Register(fs)
			require.NoError(t, fs.Parse(tt.args))
			got, err := provisionSettings(&f)
			if tt.wantFlags == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			require.Error(t, err)
			assert.True(t, IsConfigError(err))
			assert.Equal(t, tt.wantFlags, configErrorFlags(err))
		})
	}
}

// configErrorFlags lists the flags of the ConfigErrors err is or joins.
func configErrorFlags(err error) []string {
	if ce, ok := err.(*ConfigError); ok {
		return []string{ce.Flag}
	}
	var out []string
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			out = append(out, configErrorFlags(e)...)
		}
	}
	return out
}
