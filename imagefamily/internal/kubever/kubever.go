package kubever

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every Parse error.
var ErrMalformed = errors.New("malformed Kubernetes version")

// Version is a parsed major.minor.patch version. The zero value is "0.0.0". Pre-release and build
// suffixes are not kept: AKS versions never carry one, and every gate here is on major.minor.
type Version struct {
	Major, Minor, Patch int
}

// Parse reads "1.33", "1.33.2" or "v1.33.2". A missing patch is 0.
func Parse(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%w %q: want major.minor[.patch]", ErrMalformed, s)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return Version{}, fmt.Errorf("%w %q: part %q is not a number", ErrMalformed, s, p)
		}
		nums[i] = n
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2]}, nil
}

// AtLeast reports whether v >= major.minor (patch ignored).
func (v Version) AtLeast(major, minor int) bool {
	if v.Major != major {
		return v.Major > major
	}
	return v.Minor >= minor
}

// String renders major.minor.patch without a "v".
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}
