package azure

import (
	"testing"

	"github.com/napkit/napkit/launch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference case 10, plus the label → ARM direction.
func TestZoneLabel(t *testing.T) {
	one, two := "1", "2"
	tests := []struct {
		name     string
		location string
		zones    []*string
		want     string
		wantErr  string
	}{
		{name: "one zone", location: "Region", zones: []*string{&one}, want: "region-1"},
		{name: "no zones", location: "region", zones: []*string{}, want: launch.RegionalZone},
		{name: "nil zones", location: "region", want: launch.RegionalZone},
		{name: "many zones", location: "region", zones: []*string{&one, &two}, wantErr: "resource has multiple zones"},
		{name: "zonal without location", zones: []*string{&one}, wantErr: "location is required for zonal resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := zoneLabel(tt.location, tt.zones)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestARMZones(t *testing.T) {
	tests := []struct {
		label   string
		want    []string
		wantErr bool
	}{
		{label: "westus2-1", want: []string{"1"}},
		{label: "eastus-3", want: []string{"3"}},
		{label: launch.RegionalZone},
		{label: "westus2", wantErr: true},
		{label: "westus2-", wantErr: true},
		{label: "-1", wantErr: true},
		{label: "westus2-a", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			got, err := armZones(tt.label)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
