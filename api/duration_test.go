package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNillableDurationUnmarshal(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantSet   bool
		wantNever bool
		want      time.Duration
		wantErr   string
	}{
		{name: "hours", in: `"720h"`, wantSet: true, want: 720 * time.Hour},
		{name: "compound", in: `"1h30m"`, wantSet: true, want: 90 * time.Minute},
		{name: "zero", in: `"0s"`, wantSet: true},
		{name: "Go String form", in: `"720h0m0s"`, wantSet: true, want: 720 * time.Hour},
		{name: "never", in: `"Never"`, wantSet: true, wantNever: true},
		{name: "null is absent", in: `null`, wantNever: true},
		{name: "fraction", in: `"1.5h"`, wantErr: `"1.5h" (want whole s, m or h units`},
		{name: "milliseconds", in: `"100ms"`, wantErr: `"100ms"`},
		{name: "no unit", in: `"0"`, wantErr: `"0"`},
		{name: "negative", in: `"-1h"`, wantErr: `"-1h"`},
		{name: "lower-case never", in: `"never"`, wantErr: `"never"`},
		{name: "number", in: `5`, wantErr: `5 (want`},
		{name: "overflow", in: `"99999999999999h"`, wantErr: `"99999999999999h"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d NillableDuration
			err := json.Unmarshal([]byte(tt.in), &d)
			if tt.wantErr != "" {
				var te *json.UnmarshalTypeError
				require.ErrorAs(t, err, &te, "the decoders add field paths to UnmarshalTypeError only")
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSet, d.IsSet())
			assert.Equal(t, tt.wantNever, d.IsNever())
			if !tt.wantNever {
				assert.Equal(t, tt.want, *d.Duration)
			}
		})
	}
}

func TestNillableDurationJSON(t *testing.T) {
	type holder struct {
		D NillableDuration `json:"d,omitzero"`
	}
	tests := []struct {
		name string
		in   holder
		want string
	}{
		{name: "absent is omitted", in: holder{}, want: `{}`},
		{name: "never is written", in: holder{D: NeverDuration()}, want: `{"d":"Never"}`},
		{name: "duration", in: holder{D: NewDuration(time.Hour)}, want: `{"d":"1h0m0s"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
			var back holder
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tt.in.D.IsSet(), back.D.IsSet())
			assert.Equal(t, tt.in.D.String(), back.D.String())
		})
	}
}

func TestNillableDurationSetInGo(t *testing.T) {
	d := time.Minute
	assert.True(t, NillableDuration{Duration: &d}.IsSet(), "a Duration assigned in Go counts as given")
	assert.False(t, NillableDuration{}.IsSet())
	assert.True(t, NillableDuration{}.IsNever(), "the zero value keeps meaning Never")
}
