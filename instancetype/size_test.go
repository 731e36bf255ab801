package instancetype

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/internal/azuredata"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		size                    string
		want                    VMSize
		family, series, version string
	}{
		{"D2s_v3", VMSize{Family: "D", CPUs: 2, AdditiveFeatures: "s", Version: "v3"}, "D", "Ds_v3", "3"},
		{"D2_v2", VMSize{Family: "D", CPUs: 2, Version: "v2"}, "D", "D_v2", "2"},
		{"B2s", VMSize{Family: "B", CPUs: 2, AdditiveFeatures: "s"}, "B", "Bs", "1"},
		{"A0", VMSize{Family: "A", CPUs: 0}, "A", "A", "1"},
		{"NC24ads_A100_v4", VMSize{Family: "N", Subfamily: "C", CPUs: 24, AdditiveFeatures: "ads",
			Qualifiers: "_A100", AcceleratorType: "A100", Version: "v4"}, "N", "NCads_v4", "4"},
		{"NC16as_T4_v3", VMSize{Family: "N", Subfamily: "C", CPUs: 16, AdditiveFeatures: "as",
			Qualifiers: "_T4", AcceleratorType: "T4", Version: "v3"}, "N", "NCas_v3", "3"},
		{"NV36adms_A10_v5", VMSize{Family: "N", Subfamily: "V", CPUs: 36, AdditiveFeatures: "adms",
			Qualifiers: "_A10", AcceleratorType: "A10", Version: "v5"}, "N", "NVadms_v5", "5"},
		{"D16plds_v5", VMSize{Family: "D", CPUs: 16, AdditiveFeatures: "plds", Version: "v5"}, "D", "Dplds_v5", "5"},
		{"M8-2ms", VMSize{Family: "M", CPUs: 8, ConstrainedCPUs: 2, AdditiveFeatures: "ms"}, "M", "Mms", "1"},
		{"E128-32ads_v7", VMSize{Family: "E", CPUs: 128, ConstrainedCPUs: 32, AdditiveFeatures: "ads", Version: "v7"}, "E", "Eads_v7", "7"},
		{"DC8s_v3", VMSize{Family: "D", Subfamily: "C", CPUs: 8, AdditiveFeatures: "s", Version: "v3"}, "D", "DCs_v3", "3"},
		{"DC16ads_cc_v5", VMSize{Family: "D", Subfamily: "C", CPUs: 16, AdditiveFeatures: "ads", Qualifiers: "_cc", Version: "v5"}, "D", "DCads_v5", "5"},
		{"M416s_8_v2", VMSize{Family: "M", CPUs: 416, AdditiveFeatures: "s", Qualifiers: "_8", Version: "v2"}, "M", "Ms_v2", "2"},
		{"M128-64bds_3_v3", VMSize{Family: "M", CPUs: 128, ConstrainedCPUs: 64, AdditiveFeatures: "bds", Qualifiers: "_3", Version: "v3"}, "M", "Mbds_v3", "3"},
		{"ND96isr_MI300X_v5", VMSize{Family: "N", Subfamily: "D", CPUs: 96, AdditiveFeatures: "isr",
			Qualifiers: "_MI300X", AcceleratorType: "MI300X", Version: "v5"}, "N", "NDisr_v5", "5"},
		{"ND128isr_NDR_GB200_v6", VMSize{Family: "N", Subfamily: "D", CPUs: 128, AdditiveFeatures: "isr",
			Qualifiers: "_NDR_GB200", AcceleratorType: "GB200", Version: "v6"}, "N", "NDisr_v6", "6"},
		{"NC144ds_xl_RTXPRO6000BSE_v6", VMSize{Family: "N", Subfamily: "C", CPUs: 144, AdditiveFeatures: "ds",
			Qualifiers: "_xl_RTXPRO6000BSE", AcceleratorType: "RTXPRO6000BSE", Version: "v6"}, "N", "NCds_v6", "6"},
		{"NCC40ads_H100_v5", VMSize{Family: "N", Subfamily: "CC", CPUs: 40, AdditiveFeatures: "ads",
			Qualifiers: "_H100", AcceleratorType: "H100", Version: "v5"}, "N", "NCCads_v5", "5"},
		{"NG8ads_V620_v1", VMSize{Family: "N", Subfamily: "G", CPUs: 8, AdditiveFeatures: "ads",
			Qualifiers: "_V620", AcceleratorType: "V620", Version: "v1"}, "N", "NGads_v1", "1"},
		{"D2_v2_Promo", VMSize{Family: "D", CPUs: 2, Version: "v2", Promo: true}, "D", "D_v2", "2"},
		{"NC6_Promo", VMSize{Family: "N", Subfamily: "C", CPUs: 6, Promo: true}, "N", "NC", "1"},
		{"HB120-16rs_v3", VMSize{Family: "H", Subfamily: "B", CPUs: 120, ConstrainedCPUs: 16, AdditiveFeatures: "rs", Version: "v3"}, "H", "HBrs_v3", "3"},
		{"FX12mds", VMSize{Family: "F", Subfamily: "X", CPUs: 12, AdditiveFeatures: "mds"}, "F", "FXmds", "1"},
		{"L8aos_v4", VMSize{Family: "L", CPUs: 8, AdditiveFeatures: "aos", Version: "v4"}, "L", "Laos_v4", "4"},
		{"NP10s", VMSize{Family: "N", Subfamily: "P", CPUs: 10, AdditiveFeatures: "s"}, "N", "NPs", "1"},
		{"D2s_v10", VMSize{Family: "D", CPUs: 2, AdditiveFeatures: "s", Version: "v10"}, "D", "Ds_v10", "10"},
	}
	for _, tc := range tests {
		t.Run(tc.size, func(t *testing.T) {
			got, err := ParseSize(tc.size)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.size, got.String())
			assert.Equal(t, tc.family, got.Family)
			assert.Equal(t, tc.series, got.Series())
			assert.Equal(t, tc.version, got.VersionLabel())
		})
	}
}

func TestParseSizeErrors(t *testing.T) {
	tests := []struct{ size, reason string }{
		{"", "does not start with an upper-case family letter"},
		{"d2s_v3", "does not start with an upper-case family letter"},
		{"ABCD2", "more than three upper-case letters"},
		{"Ds_v3", "no vCPU count"},
		{"D02s_v3", "no vCPU count"},
		{"D1234567", "no vCPU count"},
		{"M8-ms", "no constrained vCPU count"},
		{"M8-0ms", "no constrained vCPU count"},
		{"D2-v3", "no constrained vCPU count"},
		{"D2s-v3", `unexpected "-" after the features`},
		{"D2sX_v3", `unexpected "X" after the features`},
		{"D2s v3", `unexpected " " after the features`},
		{"D2s__v3", "empty part between underscores"},
		{"D2s_v3_", "empty part between underscores"},
		{"D2s_", "empty part between underscores"},
		{"D2s_v3_v4", `part "v3" out of place`},
		{"D2s_Promo_v3", `part "Promo" out of place`},
		{"D2s_A1-0_v3", `part "A1-0" is not alphanumeric`},
		{"D2s_8x_v3", `part "8x" is neither a memory tier nor a name`},
		{"D2s_08_v3", `part "08" is neither a memory tier nor a name`},
		{"NC24ads_A100_T4_v4", "two accelerator parts"},
		{"Standard_D2s_v3", "no vCPU count"},
	}
	for _, tc := range tests {
		t.Run(tc.size, func(t *testing.T) {
			_, err := ParseSize(tc.size)
			require.ErrorIs(t, err, ErrBadSize)
			assert.Contains(t, err.Error(), tc.reason)
			assert.Contains(t, err.Error(), `"`+tc.size+`"`)
		})
	}
}

// TestVersionNumber is reference case 7 (Karpenter's version extraction).
func TestVersionNumber(t *testing.T) {
	tests := []struct {
		version, want string
		ok            bool
	}{
		{"", "1", true},
		{"v2", "2", true},
		{"V2", "2", true},
		{"V123", "123", true},
		{"x2", "", false},
		{"v", "", false},
		{"v2a", "", false},
	}
	for _, tc := range tests {
		got, ok := versionNumber(tc.version)
		assert.Equal(t, tc.want, got, tc.version)
		assert.Equal(t, tc.ok, ok, tc.version)
	}
}

// TestEveryRealSizeParses parses every size of the eastus catalogue and every known VM size name:
// each must parse and print back unchanged. The one exception is an unparseable name in neither list.
func TestEveryRealSizeParses(t *testing.T) {
	names := map[string]bool{}
	for _, raw := range catalog(t, "eastus") {
		names[deref(raw.Size)] = true
	}
	require.Len(t, names, 1293)
	data, err := azuredata.KnownSKUs()
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	require.NoError(t, err)
	for _, row := range rows[1:] {
		names[sizeFromName(row[0])] = true
	}
	assert.Greater(t, len(names), 1500)
	for name := range names {
		v, err := ParseSize(name)
		if assert.NoError(t, err) {
			assert.Equal(t, name, v.String())
			assert.NotEmpty(t, v.VersionLabel(), name)
			assert.False(t, strings.Contains(v.Series(), "__"), name)
		}
	}
}
