package azure_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azure"
	"github.com/napkit/napkit/launch/azuresim"
)

func TestNewLauncherValidatesOptions(t *testing.T) {
	valid := func() azure.Options {
		return azure.Options{
			SubscriptionID: "sub", ResourceGroup: "rg", Location: "westus2", ClusterName: "c", Credential: azuresim.Credential{},
		}
	}
	tests := []struct {
		name   string
		mutate func(*azure.Options)
		want   []string
	}{
		{name: "defaults are enough", mutate: func(*azure.Options) {}},
		{name: "everything missing", mutate: func(o *azure.Options) { *o = azure.Options{} },
			want: []string{"SubscriptionID is required", "ResourceGroup is required", "Location is required", "ClusterName is required", "Credential is required"}},
		{name: "negative numbers", mutate: func(o *azure.Options) {
			o.PollFrequency, o.MaxConcurrency, o.MaxAttempts, o.NetworkLookupTTL, o.PollRate = -1, -1, -1, -1, -1
			o.RequestRates.Writes = -1
		}, want: []string{"PollFrequency must not be negative", "MaxConcurrency must not be negative", "MaxAttempts must not be negative",
			"NetworkLookupTTL must not be negative", "PollRate must not be negative", "RequestRates.Writes must not be negative"}},
		{name: "unknown mode", mutate: func(o *azure.Options) { o.Mode = "aksvmss" }, want: []string{`Mode: invalid input: mode: must be one of`, `got "aksvmss"`}},
		{name: "Machine API mode needs the pool", mutate: func(o *azure.Options) { o.Mode = imagefamily.ModeMachineAPIHeaderBatch },
			want: []string{"ClusterResourceGroup is required in mode aksmachineapiheaderbatch", "MachinesPool is required"}},
		{name: "Machine API mode", mutate: func(o *azure.Options) {
			o.Mode, o.ClusterResourceGroup, o.MachinesPool = imagefamily.ModeMachineAPI, "rg", "karpenter"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := valid()
			tt.mutate(&opts)
			l, err := azure.NewLauncher(opts)
			if len(tt.want) == 0 {
				require.NoError(t, err)
				assert.NotNil(t, l.Cache(), "a private cache by default")
				return
			}
			require.ErrorIs(t, err, launch.ErrInvalidOptions)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
