package imagefamily_test

import (
	"errors"
	"testing"
	"time"

	"github.com/napkit/napkit/imagefamily"
)

// Reference case 8.
func TestIsNewerImageVersion(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"202308.28.0", "202411.12.0", false},
		{"202411.12.0", "202308.28.0", true},
		{"202202.08.29", "202405.20.0", false},
		{"2022.10.03", "2022.12.15", false},
		{"202411.12.0", "2022.12.15", true},
		{"2022.12.15", "2022.10.03", true},
		{"202411.12.0", "202411.12.0", false},
		{"2o2411.12.0", "202411.12.0", false},
		{"202411.12.0", "2o2411.12.0", false},
		{"202411.12.0.1", "202411.12.0", true},
		{"202411.12", "202411.12.0", false},
		{"", "1", false},
		{"1..2", "1.1", false},
		{"+1.2", "1.1", false},
	}
	for _, tt := range tests {
		if got := imagefamily.IsNewerImageVersion(tt.a, tt.b); got != tt.want {
			t.Errorf("IsNewerImageVersion(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if _, err := imagefamily.CompareImageVersions("1.x", "1.0"); !errors.Is(err, imagefamily.ErrInvalid) {
		t.Errorf("CompareImageVersions(bad) error = %v", err)
	}
}

func TestNewestPublished(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	versions := []imagefamily.AvailableVersion{
		{Version: "202605.01.0", PublishedAt: day},
		{Version: "202601.01.0", PublishedAt: day.Add(48 * time.Hour)}, // republished later: wins
		{Version: "202604.01.0", PublishedAt: day.Add(24 * time.Hour)},
	}
	got, err := imagefamily.NewestPublished(versions)
	if err != nil || got.Version != "202601.01.0" {
		t.Errorf("NewestPublished = %v, %v", got, err)
	}
	// Equal dates fall back to the version number, whatever the order.
	tie := []imagefamily.AvailableVersion{{Version: "2022.10.03"}, {Version: "202411.12.0"}, {Version: "2022.12.15"}}
	for i := range tie {
		rotated := append(append([]imagefamily.AvailableVersion{}, tie[i:]...), tie[:i]...)
		if got, _ := imagefamily.NewestPublished(rotated); got.Version != "202411.12.0" {
			t.Errorf("NewestPublished(%v) = %v", rotated, got.Version)
		}
	}
	if _, err := imagefamily.NewestPublished(nil); !errors.Is(err, imagefamily.ErrNoImageVersion) {
		t.Errorf("NewestPublished(nil) error = %v", err)
	}
}

func TestNewestVersion(t *testing.T) {
	got, err := imagefamily.NewestVersion([]string{"2022.12.15", "bad", "202411.12.0", "202308.28.0"})
	if err != nil || got != "202411.12.0" {
		t.Errorf("NewestVersion = %q, %v", got, err)
	}
	if _, err := imagefamily.NewestVersion([]string{"bad"}); !errors.Is(err, imagefamily.ErrNoImageVersion) {
		t.Errorf("NewestVersion(bad) error = %v", err)
	}
}

// FuzzCompareImageVersions checks the ordering is antisymmetric and that malformed versions are
// never newer than anything.
func FuzzCompareImageVersions(f *testing.F) {
	f.Add("202411.12.0", "2022.12.15")
	f.Add("2o2411.12.0", "1")
	f.Add("1.2", "1.2.0")
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, errA := imagefamily.CompareImageVersions(a, b)
		ba, errB := imagefamily.CompareImageVersions(b, a)
		if (errA == nil) != (errB == nil) || ab != -ba {
			t.Fatalf("Compare(%q,%q)=%d,%v but Compare(%q,%q)=%d,%v", a, b, ab, errA, b, a, ba, errB)
		}
		if errA != nil && (imagefamily.IsNewerImageVersion(a, b) || imagefamily.IsNewerImageVersion(b, a)) {
			t.Fatalf("malformed pair %q %q reported newer", a, b)
		}
	})
}
