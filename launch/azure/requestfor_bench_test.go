package azure_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
)

// BenchmarkRequestFor builds the launch request of a NodeClaim that allows every amd64 size of the
// fixture catalogue (15; a claim may list up to 60, Karpenter's scheduling.MaxInstanceTypes). The
// controller builds one per launch and keeps it while the launch runs, so B/op is also about what
// each launch in flight holds.
func BenchmarkRequestFor(b *testing.B) {
	probe := requestOptions(b, imagefamily.ModeScriptless)
	var sizes []string
	for _, it := range probe.Catalogue.InstanceTypes {
		if it.SKU != nil && it.SKU.Arch == "amd64" {
			sizes = append(sizes, it.Name)
		}
	}
	opts := requestOptions(b, imagefamily.ModeScriptless, sizes...)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req, err := launch.RequestFor(ctx, opts)
		require.NoError(b, err)
		require.Len(b, req.Candidates, len(sizes))
	}
}
