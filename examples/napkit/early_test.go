package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/api"
)

// TestEarlyCatalogue: the catalogue built while the manifests are read is taken once, for the node
// class it was built from, and equals the one built after; another node class, or live prices,
// get theirs built when asked.
func TestEarlyCatalogue(t *testing.T) {
	nodeClass := func(name string, gb int32) *api.AKSNodeClass {
		nc := &api.AKSNodeClass{}
		nc.Name = name
		nc.Default()
		nc.Spec.OSDiskSizeGB = &gb
		return nc
	}
	first, other := nodeClass("default", 128), nodeClass("big", 256)
	tests := []struct {
		name      string
		prices    string
		ask       *api.AKSNodeClass
		started   bool // whether an early build starts
		wantEarly bool // whether loadFor takes it
	}{
		{"the node class read first", "", first, true, true},
		{"another node class", "", other, true, false},
		{"live prices are not preloaded", "live", first, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := catalogueFlags{region: "eastus", prices: tt.prices, network: api.DefaultClusterNetwork()}
			cat.preload()
			cat.buildEarly(first)
			assert.Equal(t, tt.started, cat.early != nil)
			if tt.prices == "live" {
				return // no Azure call from a test
			}
			got, err := cat.loadFor(tt.ask)
			require.NoError(t, err)
			want, err := (&catalogueFlags{region: "eastus", network: api.DefaultClusterNetwork()}).loadFor(tt.ask)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			if tt.wantEarly {
				assert.Same(t, cat.early.cat, got, "the early catalogue")
			} else if tt.started {
				<-cat.early.done
				assert.NotSame(t, cat.early.cat, got)
				again, err := cat.loadFor(tt.ask)
				require.NoError(t, err)
				assert.NotSame(t, got, again, "taken once")
			}
		})
	}
}
