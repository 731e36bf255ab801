package kubever

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    Version
		wantErr bool
	}{
		{in: "1.33.2", want: Version{1, 33, 2}},
		{in: "v1.34.0", want: Version{1, 34, 0}},
		{in: "1.31", want: Version{1, 31, 0}},
		{in: "", wantErr: true},
		{in: "1", wantErr: true},
		{in: "1.2.3.4", wantErr: true},
		{in: "1.x.0", wantErr: true},
		{in: "1.-2.0", wantErr: true},
		{in: "1.+2.0", wantErr: true},
		{in: "1.02.0", wantErr: true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr {
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("Parse(%q) error = %v, want ErrMalformed", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestAtLeast(t *testing.T) {
	tests := []struct {
		v            Version
		major, minor int
		want         bool
	}{
		{Version{1, 34, 0}, 1, 34, true},
		{Version{1, 33, 9}, 1, 34, false},
		{Version{1, 35, 0}, 1, 34, true},
		{Version{2, 0, 0}, 1, 34, true},
		{Version{0, 99, 0}, 1, 1, false},
	}
	for _, tt := range tests {
		if got := tt.v.AtLeast(tt.major, tt.minor); got != tt.want {
			t.Errorf("%v.AtLeast(%d, %d) = %v, want %v", tt.v, tt.major, tt.minor, got, tt.want)
		}
	}
}
