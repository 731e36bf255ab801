package instancetype

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/internal/azuredata"
)

// TestCompactCatalogue holds every embedded catalogue's compact form equal to LoadDefault's reading
// of the ARM JSON it is made from, SKU by SKU, and byte-identical to what writeCompact makes of it
// now. -update (what `go generate ./instancetype` runs) rewrites the files.
func TestCompactCatalogue(t *testing.T) {
	require.NotEmpty(t, DefaultRegions())
	for _, region := range DefaultRegions() {
		t.Run(region, func(t *testing.T) {
			fromJSON, err := loadDefaultJSON(region)
			require.NoError(t, err)
			want, err := writeCompact(fromJSON)
			require.NoError(t, err)
			path := filepath.Join("..", "internal", "azuredata", "catalog-"+region+".tsv")
			if *update {
				// The embedded copy is compiled in only on the next run, so -update checks the
				// bytes it wrote: they read back to the SKUs of the JSON.
				require.NoError(t, os.WriteFile(path, want, 0o644))
				written, err := readCompact(want)
				require.NoError(t, err)
				require.Equal(t, fromJSON, written)
				return
			}
			got, err := azuredata.CompactCatalog(region)
			require.NoError(t, err, "run go generate ./instancetype")
			require.Equal(t, string(want), string(got), "%s is stale: run go generate ./instancetype", path)
			list, err := LoadDefault(region)
			require.NoError(t, err)
			require.Equal(t, fromJSON, list)
		})
	}
}

// TestCompactColumns: the compact form has a column for every SKU field, in order, so a field
// added to SKU fails here until the format carries it.
func TestCompactColumns(t *testing.T) {
	assert.Equal(t, strings.Join(skuFieldNames(), "\t"), compactColumnNames())
}

func TestCompactRoundTrip(t *testing.T) {
	full := &SKU{Name: "Standard_X", Size: "X", ResourceType: "virtualMachines", Family: "f", VCPUs: 8,
		VCPUsAvailable: 4, MemoryGiB: 0.75, GPUs: 1, Arch: "arm64", HyperVGenerations: sets.New("2", "1"),
		LowPriorityCapable: true, PremiumIO: true, AcceleratedNetworking: true, EncryptionAtHostSupported: true,
		TrustedLaunchDisabled: true, EphemeralOSDiskSupported: true, SupportedEphemeralOSDiskPlacements: []string{"ResourceDisk", "CacheDisk"},
		CachedDiskBytes: 1 << 40, MaxResourceVolumeMB: 7, NvmeDiskSizeInMiB: 9, DiskCapabilitiesKnown: true,
		UltraSSDAvailable: true, UltraSSDZones: []string{"2"}, Zones: []string{"1", "3"}, LocationRestricted: true, OfferedInRegion: true}
	bare := &SKU{Name: "Standard_Y", Size: "Y"}
	tests := []struct {
		name    string
		skus    []*SKU
		wantErr string
	}{
		{"full then bare then full", []*SKU{full, bare, full}, ""},
		{"empty list that is not nil", []*SKU{{Name: "Standard_Z", Size: "Z", Zones: []string{}}}, "SKU Standard_Z does not read back"},
		{"tab in a value", []*SKU{{Name: "Standard_\tZ", Size: "Z"}}, `SKU Standard_	Z: name: "Standard_\tZ" has no compact form`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := writeCompact(&SKUList{SKUs: tt.skus})
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			back, err := readCompact(data)
			require.NoError(t, err)
			assert.Equal(t, tt.skus, back.SKUs)
		})
	}
}

func TestReadCompactErrors(t *testing.T) {
	head := compactHeader + "\n" + compactColumnNames() + "\n"
	row := strings.Repeat("x\t", len(compactColumns)-1) + "x"
	tests := []struct {
		name, data, want string
	}{
		{"stale columns", compactHeader + "\nname\n", `bad SKU list: compact catalogue: header "# napkit compact SKU list`},
		{"short row", head + "a\tb\n", "bad SKU list: compact catalogue line 3: want 26 tab-separated cells"},
		{"bad number", head + strings.Replace(row, "x", "Standard_A", 1), `line 3: vCPUs: "x": strconv.ParseInt: parsing "x": invalid syntax`},
		{"ditto on the first row", head + "\t" + row[2:], "line 3: name: empty, with no cell above to repeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readCompact([]byte(tt.data))
			require.ErrorIs(t, err, ErrBadSKUList)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestReadCompactLastNewline: a compact catalogue whose last row has no newline reads the same
// (readCompact sizes its array of SKUs from the rows it counts).
func TestReadCompactLastNewline(t *testing.T) {
	data, err := azuredata.CompactCatalog("eastus")
	require.NoError(t, err)
	want, err := readCompact(data)
	require.NoError(t, err)
	got, err := readCompact(bytes.TrimSuffix(data, []byte("\n")))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
