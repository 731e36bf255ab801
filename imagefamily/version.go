package imagefamily

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// CompareImageVersions compares two node image versions as dotted integers, component by component:
// -1 if a is older, 0 if equal, +1 if newer. When one is a prefix of the other, the longer is newer.
// Both AKS formats compare correctly: the old yyyy.mm.dd (2022.10.03) and the new yyyymm.dd.build
// (202411.12.0), and every new version is newer than every old one because its first component is
// larger. A version that is not dotted non-negative integers is an error wrapping ErrInvalid.
func CompareImageVersions(a, b string) (int, error) {
	pa, err := parseImageVersion(a)
	if err != nil {
		return 0, err
	}
	pb, err := parseImageVersion(b)
	if err != nil {
		return 0, err
	}
	for i := range min(len(pa), len(pb)) {
		if c := cmp.Compare(pa[i], pb[i]); c != 0 {
			return c, nil
		}
	}
	return cmp.Compare(len(pa), len(pb)), nil
}

// IsNewerImageVersion reports whether a is strictly newer than b; a malformed version is never
// newer, so a bad entry in a version list cannot displace a good one.
func IsNewerImageVersion(a, b string) bool {
	c, err := CompareImageVersions(a, b)
	return err == nil && c > 0
}

func parseImageVersion(v string) ([]uint64, error) {
	parts := strings.Split(v, ".")
	out := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || p == "" || p[0] == '+' {
			return nil, newError(ErrInvalid, "image version", v, "want dot-separated non-negative integers")
		}
		out[i] = n
	}
	return out, nil
}

// AvailableVersion is one published version of an image definition.
type AvailableVersion struct {
	// Definition is the image definition name, e.g. 2204gen2containerd.
	Definition string
	// Version is the image version, e.g. 202411.12.0.
	Version string
	// PublishedAt is the gallery's publish date; the zero time when unknown (shared gallery lists).
	PublishedAt time.Time
}

// NewestPublished returns the most recently published version: the community gallery's notion of
// "latest". Ties on the date (including unknown dates) go to the higher version number, then to the
// lexically greater string, so the choice never depends on input order. It fails with
// ErrNoImageVersion on an empty list.
func NewestPublished(versions []AvailableVersion) (AvailableVersion, error) {
	if len(versions) == 0 {
		return AvailableVersion{}, newError(ErrNoImageVersion, "image versions", nil, "the list is empty")
	}
	best := versions[0]
	for _, v := range versions[1:] {
		if publishedAfter(v, best) {
			best = v
		}
	}
	return best, nil
}

func publishedAfter(a, b AvailableVersion) bool {
	if !a.PublishedAt.Equal(b.PublishedAt) {
		return a.PublishedAt.After(b.PublishedAt)
	}
	if c, err := CompareImageVersions(a.Version, b.Version); err == nil && c != 0 {
		return c > 0
	}
	return a.Version > b.Version
}

// NewestVersion returns the highest version by CompareImageVersions: the shared gallery's notion of
// "latest", where AKS lists versions without dates. Malformed versions are skipped; ErrNoImageVersion
// when none is left.
func NewestVersion(versions []string) (string, error) {
	best := ""
	for _, v := range versions {
		if _, err := parseImageVersion(v); err != nil {
			continue
		}
		if best == "" || IsNewerImageVersion(v, best) {
			best = v
		}
	}
	if best == "" {
		return "", newError(ErrNoImageVersion, "image versions", strings.Join(versions, ","), "no well-formed version")
	}
	return best, nil
}
