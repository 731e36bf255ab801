package pricing

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name          string
		input         string
		defaultRegion string
		want          map[string]map[string]Price
	}{
		{
			name: "table with and without spot",
			input: "region,sku,on_demand_usd_per_hour,spot_usd_per_hour\n" +
				"eastus,Standard_D2s_v3,0.096000,0.01056\n" +
				"eastus,Standard_B1s,0.010400,\n" +
				"westus2,Standard_D2s_v3,0.096,\n",
			want: map[string]map[string]Price{
				"eastus": {
					"Standard_D2s_v3": {OnDemand: 0.096, Spot: 0.01056, SpotKnown: true},
					"Standard_B1s":    {OnDemand: 0.0104, Spot: 0.0104},
				},
				"westus2": {"Standard_D2s_v3": {OnDemand: 0.096, Spot: 0.096}},
			},
		},
		{
			name:          "catalogue uses the default region",
			input:         "sku,on_demand_usd_per_hour\nStandard_A1_v2,0.043\nStandard_A2_v2,0.0903\n",
			defaultRegion: "WestUS2",
			want: map[string]map[string]Price{"westus2": {
				"Standard_A1_v2": {OnDemand: 0.043, Spot: 0.043},
				"Standard_A2_v2": {OnDemand: 0.0903, Spot: 0.0903},
			}},
		},
		{
			name: "spaces trimmed, region lower-cased, CRLF and byte-order mark",
			input: "\ufeffregion,sku,on_demand_usd_per_hour,spot_usd_per_hour\r\n" +
				"EastUS,Standard_NM16ads_MA35D  , 1.95 , 0.5 \r\n",
			want: map[string]map[string]Price{"eastus": {
				"Standard_NM16ads_MA35D": {OnDemand: 1.95, Spot: 0.5, SpotKnown: true},
			}},
		},
		{
			name:  "header only",
			input: "region,sku,on_demand_usd_per_hour,spot_usd_per_hour\n",
			want:  map[string]map[string]Price{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := ParseCSV(strings.NewReader(tc.input), tc.defaultRegion)
			require.NoError(t, err)
			assert.Equal(t, tc.want, snap.regions)
		})
	}
}

type parseErrorCase struct {
	name       string
	input      string
	wantLine   int
	wantColumn string
	wantValue  string
	wantIs     error
	wantInMsg  string
}

// parseErrorCases are malformed inputs and where ParseCSV must say they are wrong.
func parseErrorCases() []parseErrorCase {
	const header = "region,sku,on_demand_usd_per_hour,spot_usd_per_hour\n"
	const good = "eastus,Standard_D2s_v3,0.096,\n"
	return []parseErrorCase{
		{name: "empty input", input: "", wantLine: 1, wantInMsg: "empty input"},
		{name: "quoted header is one column", input: "\"sku,on_demand_usd_per_hour\"\nx\n", wantLine: 1,
			wantInMsg: "unknown header"},
		{name: "unknown header", input: "name,price\nx,1\n", wantLine: 1, wantValue: "name,price", wantInMsg: "unknown header"},
		{name: "negative", input: header + good + "eastus,Standard_B1s,-0.01,\n", wantLine: 3,
			wantColumn: colOnDemand, wantValue: "-0.01", wantIs: ErrInvalidPrice},
		{name: "zero", input: header + "eastus,Standard_B1s,0.000000,\n", wantLine: 2,
			wantColumn: colOnDemand, wantValue: "0.000000", wantIs: ErrInvalidPrice},
		{name: "NaN", input: header + "eastus,Standard_B1s,NaN,\n", wantLine: 2,
			wantColumn: colOnDemand, wantValue: "NaN", wantIs: ErrInvalidPrice},
		{name: "infinite", input: header + "eastus,Standard_B1s,+Inf,\n", wantLine: 2,
			wantColumn: colOnDemand, wantValue: "+Inf", wantIs: ErrInvalidPrice},
		{name: "out of range", input: header + "eastus,Standard_B1s,1e999,\n", wantLine: 2,
			wantColumn: colOnDemand, wantValue: "1e999", wantInMsg: "out of range"},
		{name: "not a number", input: header + "eastus,Standard_B1s,cheap,\n", wantLine: 2,
			wantColumn: colOnDemand, wantValue: "cheap", wantInMsg: "invalid syntax"},
		{name: "missing price", input: header + "eastus,Standard_B1s,,0.01\n", wantLine: 2,
			wantColumn: colOnDemand, wantInMsg: "missing price"},
		{name: "bad spot", input: header + "eastus,Standard_B1s,0.01,-1\n", wantLine: 2,
			wantColumn: colSpot, wantValue: "-1", wantIs: ErrInvalidPrice},
		{name: "bad region", input: header + "east us,Standard_B1s,0.01,\n", wantLine: 2,
			wantColumn: colRegion, wantValue: "east us", wantIs: ErrInvalidRegion},
		{name: "missing SKU", input: header + "eastus, ,0.01,\n", wantLine: 2, wantColumn: colSKU, wantValue: " "},
		{name: "duplicate", input: header + good + "EASTUS,Standard_D2s_v3 ,0.2,\n", wantLine: 3,
			wantColumn: colSKU, wantInMsg: "duplicate"},
		{name: "wrong field count", input: header + good + "eastus,Standard_B1s,0.01\n", wantLine: 3,
			wantInMsg: "wrong number of fields"},
		{name: "bare quote", input: header + "eastus,Standard_\"B1s,0.01,\n", wantLine: 2},
		{name: "long value shortened", input: header + "eastus,Standard_B1s," + strings.Repeat("9", 500) + "x,\n",
			wantLine: 2, wantColumn: colOnDemand, wantValue: strings.Repeat("9", maxValueInError) + "..."},
		{name: "catalogue line", input: "sku,on_demand_usd_per_hour\nStandard_A1_v2,0.043\nStandard_A2_v2,free\n",
			wantLine: 3, wantColumn: colOnDemand, wantValue: "free"},
	}
}

func TestParseCSVErrors(t *testing.T) {
	for _, tc := range parseErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCSV(strings.NewReader(tc.input), "eastus")
			require.ErrorIs(t, err, ErrMalformed)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.wantLine, pe.Line, "line")
			assert.Equal(t, tc.wantColumn, pe.Column, "column")
			if tc.wantValue != "" {
				assert.Equal(t, tc.wantValue, pe.Value, "value")
			}
			if tc.wantIs != nil {
				assert.ErrorIs(t, err, tc.wantIs)
			}
			assert.Contains(t, err.Error(), tc.wantInMsg)
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("region,sku,on_demand_usd_per_hour,spot_usd_per_hour\neastus,Standard_B1s,-1,\n"), "")
	require.Error(t, err)
	assert.Equal(t, `pricing: line 2, column on_demand_usd_per_hour, value "-1": `+
		`price must be a finite number greater than zero`, err.Error())
}

func TestParseCSVBadDefaultRegion(t *testing.T) {
	for _, region := range []string{"", "east us", "eastus'"} {
		_, err := ParseCSV(strings.NewReader("sku,on_demand_usd_per_hour\nStandard_A1_v2,0.043\n"), region)
		require.ErrorIs(t, err, ErrInvalidRegion, "region %q", region)
		assert.NotErrorIs(t, err, ErrMalformed, "the caller's argument is wrong, not the input")
	}
}

func TestParseCSVReaderError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := ParseCSV(iotest.ErrReader(boom), "eastus")
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, ErrMalformed)
}
