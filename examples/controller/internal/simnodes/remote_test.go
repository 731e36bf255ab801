package simnodes

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch/azuresim"
)

// TestRemoteAzure reaches a simulated Azure served over HTTPS (Sim.Handler) with the real ARM
// clients NewRemoteAzure builds: the requests arrive at the simulator over the wire, with its
// token, and the answers (a published image version, the vCPU usages, the VM list) come back
// decoded as from the in-process transport. Only an https URL is accepted.
func TestRemoteAzure(t *testing.T) {
	cat := eastusCatalogue(t)
	sim, _, err := NewAzure(AzureOptions{Catalogue: cat, ResourceGroup: "MC_rg", ClusterName: "c"})
	require.NoError(t, err)
	PublishNodeImages(sim, "202611.02.0", time.Now().Add(-time.Hour))
	srv := httptest.NewTLSServer(sim.Handler())
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name     string
		endpoint string
		wantErr  string
	}{
		{"https server", srv.URL, ""},
		{"plain http", "http://" + srv.Listener.Addr().String(), "want https://host:port"},
		{"no host", "https://", "want https://host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			launcher, up, err := NewRemoteAzure(RemoteOptions{Endpoint: tc.endpoint, Location: "eastus",
				ResourceGroup: "MC_rg", ClusterName: "c", Transport: srv.Client()})
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			sim.ResetRecords()
			ctx := t.Context()
			defs := imagefamily.Definitions(imagefamily.Ubuntu2204, imagefamily.VariantStandard)
			versions, err := up.ImageVersions.Versions(ctx, imagefamily.CommunityGallery, imagefamily.Ubuntu2204, defs)
			require.NoError(t, err)
			require.NotEmpty(t, versions)
			assert.Equal(t, "202611.02.0", versions[0].Version)
			_, _, err = up.Usage.List(ctx)
			require.NoError(t, err)
			vms, err := launcher.List(ctx)
			require.NoError(t, err)
			assert.Empty(t, vms)
			ops := map[azuresim.Op]int{}
			for _, r := range sim.Requests() {
				assert.Equal(t, 200, r.Status, "%s %s", r.Method, r.Path)
				ops[r.Op]++
			}
			for _, op := range []azuresim.Op{azuresim.OpImageVersionList, azuresim.OpUsageList, azuresim.OpVMList} {
				assert.Positive(t, ops[op], "%s served by the simulator over HTTPS", op)
			}
		})
	}
}
