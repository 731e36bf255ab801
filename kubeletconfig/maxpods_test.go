package kubeletconfig

import (
	"testing"

	"github.com/napkit/napkit/api"
	"github.com/stretchr/testify/assert"
)

// Mirrors upstream "default maxPods → pods capacity" (reference §8 case 4) and §2.5.
func TestMaxPods(t *testing.T) {
	withMaxPods := func(n int32) *api.AKSNodeClass {
		return &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{MaxPods: &n}}
	}
	tests := []struct {
		name      string
		nodeClass *api.AKSNodeClass
		network   api.ClusterNetwork
		want      int32
	}{
		{"azure node subnet", nil, api.ClusterNetwork{Plugin: "azure"}, 30},
		{"azure overlay", nil, api.ClusterNetwork{Plugin: "azure", PluginMode: "overlay"}, 250},
		{"overlay with cilium dataplane", nil, api.DefaultClusterNetwork(), 250},
		{"node subnet with cilium dataplane", nil, api.ClusterNetwork{Plugin: "azure", Dataplane: "cilium"}, 30},
		{"plugin none", nil, api.ClusterNetwork{Plugin: "none"}, 250},
		{"plugin none ignores mode", nil, api.ClusterNetwork{Plugin: "none", PluginMode: "overlay"}, 250},
		{"kubenet", nil, api.ClusterNetwork{Plugin: "kubenet"}, 110},
		{"zero network is matched as given", nil, api.ClusterNetwork{}, 110},
		{"azure with unknown mode", nil, api.ClusterNetwork{Plugin: "azure", PluginMode: "bogus"}, 110},
		{"node class 150 wins over overlay", withMaxPods(150), api.DefaultClusterNetwork(), 150},
		{"node class 100 wins over node subnet", withMaxPods(100), api.ClusterNetwork{Plugin: "azure"}, 100},
		{"node class without maxPods", &api.AKSNodeClass{}, api.ClusterNetwork{Plugin: "azure"}, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, MaxPods(tt.nodeClass, tt.network))
		})
	}
}
