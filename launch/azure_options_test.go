package launch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/launch"
	"github.com/napkit/napkit/launch/azuresim"
)

func TestNewAzureLauncherValidatesOptions(t *testing.T) {
	valid := func() launch.AzureOptions {
		return launch.AzureOptions{
			SubscriptionID: "sub", ResourceGroup: "rg", Location: "westus2", ClusterName: "c", Credential: azuresim.Credential{},
		}
	}
	tests := []struct {
		name   string
		mutate func(*launch.AzureOptions)
		want   []string
	}{
		{name: "defaults are enough", mutate: func(*launch.AzureOptions) {}},
		{name: "everything missing", mutate: func(o *launch.AzureOptions) { *o = launch.AzureOptions{} },
			want: []string{"SubscriptionID is required", "ResourceGroup is required", "Location is required", "ClusterName is required", "Credential is required"}},
		{name: "negative numbers", mutate: func(o *launch.AzureOptions) { o.PollFrequency, o.MaxConcurrency, o.MaxAttempts = -1, -1, -1 },
			want: []string{"PollFrequency must not be negative", "MaxConcurrency must not be negative", "MaxAttempts must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := valid()
			tt.mutate(&opts)
			l, err := launch.NewAzureLauncher(opts)
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
