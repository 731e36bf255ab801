package instancetype

import (
	"slices"
	"strconv"
	"strings"

	"github.com/napkit/napkit/api"
)

// VMSize is an Azure VM size name split into its parts. Azure names sizes as
//
//	Family [Subfamily] vCPUs [-ConstrainedCPUs] [AdditiveFeatures] {_Qualifier} [_Version] [_Promo]
//
// for example NC24ads_A100_v4 (family N, subfamily C, 24 vCPUs, features "ads", accelerator A100,
// version v4), M8-2ms (8 vCPUs constrained to 2, features "ms") or M416s_8_v2 (memory tier 8).
// VMSize is a comparable value; String rebuilds the name exactly.
type VMSize struct {
	// Family is the single upper-case letter that starts the name (D, E, N, ...).
	Family string `json:"family"`
	// Subfamily is zero to two upper-case letters after it (C in NC, CC in NCC).
	Subfamily string `json:"subfamily,omitempty"`
	// CPUs is the vCPU count in the name.
	CPUs int `json:"cpus"`
	// ConstrainedCPUs is the active vCPU count of a constrained-core size (2 in M8-2ms), 0 otherwise.
	ConstrainedCPUs int `json:"constrainedCPUs,omitempty"`
	// AdditiveFeatures are the lower-case feature letters ("ads", "plds", "s").
	AdditiveFeatures string `json:"additiveFeatures,omitempty"`
	// Qualifiers are the parts between the features and the version, verbatim with their leading
	// underscores: an accelerator ("_A100"), a memory tier ("_8"), "_cc", "_xl_RTXPRO6000BSE".
	Qualifiers string `json:"qualifiers,omitempty"`
	// AcceleratorType is the qualifier that names a GPU or accelerator: upper-case first and holding a
	// digit (A100, T4, A10, H100, MI300X, V710, GB200, RTXPRO6000BSE).
	AcceleratorType string `json:"acceleratorType,omitempty"`
	// Version is "v2", "v5", ...; empty for first-generation sizes.
	Version string `json:"version,omitempty"`
	// Promo marks the retired promotional sizes (D2_v2_Promo).
	Promo bool `json:"promo,omitempty"`
}

// maxCPUDigits bounds the vCPU numbers so they always fit an int.
const maxCPUDigits = 6

// ParseSize splits a size name such as "D2s_v3" (the SKU's size field, without the "Standard_" tier
// prefix). Errors are *api.FieldError values of class ErrBadSize.
//
// It follows the grammar of skewer (the SKU library Karpenter's Azure provider uses) but accepts any
// lower-case feature letters and any alphanumeric qualifier, so newer names parse (L8aos_v4,
// ND128isr_NDR_GB200_v6, NC144ds_xl_RTXPRO6000BSE_v6), and MI300X counts as an accelerator.
func ParseSize(size string) (VMSize, error) {
	var v VMSize
	rest, reason := v.parseHead(size)
	if reason == "" {
		reason = v.parseTail(rest)
	}
	if reason != "" {
		return VMSize{}, api.Invalid(ErrBadSize, "", "VM size", size, "%s", reason)
	}
	return v, nil
}

// parseHead reads family, subfamily, vCPUs, constrained vCPUs and features, and returns the rest.
func (v *VMSize) parseHead(s string) (rest, reason string) {
	upper := leadingRun(s, isUpper)
	switch {
	case upper == 0:
		return "", "does not start with an upper-case family letter"
	case upper > 3:
		return "", "more than three upper-case letters before the vCPU count"
	}
	v.Family, v.Subfamily = s[:1], s[1:upper]
	s = s[upper:]
	cpus, s, ok := parseCount(s)
	if !ok {
		return "", "no vCPU count after the family letters"
	}
	v.CPUs = cpus
	if strings.HasPrefix(s, "-") {
		constrained, after, ok := parseCount(s[1:])
		if !ok || constrained == 0 {
			return "", "no constrained vCPU count after '-'"
		}
		v.ConstrainedCPUs, s = constrained, after
	}
	features := leadingRun(s, isLower)
	v.AdditiveFeatures, s = s[:features], s[features:]
	if s != "" && s[0] != '_' {
		return "", "unexpected " + strconv.Quote(s[:1]) + " after the features"
	}
	return s, ""
}

// parseTail reads the underscore-separated parts after the features.
func (v *VMSize) parseTail(s string) string {
	if s == "" {
		return ""
	}
	parts := strings.Split(s[1:], "_")
	if slices.Contains(parts, "") {
		return "empty part between underscores"
	}
	if parts[len(parts)-1] == "Promo" {
		v.Promo = true
		parts = parts[:len(parts)-1]
	}
	if n := len(parts); n > 0 && isVersion(parts[n-1]) {
		v.Version = parts[n-1]
		parts = parts[:n-1]
	}
	for _, p := range parts {
		if reason := v.addQualifier(p); reason != "" {
			return reason
		}
	}
	return ""
}

func (v *VMSize) addQualifier(p string) string {
	switch {
	case leadingRun(p, isAlnum) != len(p):
		return "part " + strconv.Quote(p) + " is not alphanumeric"
	case isVersion(p) || p == "Promo":
		return "part " + strconv.Quote(p) + " out of place"
	case p[0] == '0' || (isDigit(p[0]) && leadingRun(p, isDigit) != len(p)):
		return "part " + strconv.Quote(p) + " is neither a memory tier nor a name"
	case isUpper(p[0]) && strings.ContainsAny(p, "0123456789"):
		if v.AcceleratorType != "" {
			return "two accelerator parts"
		}
		v.AcceleratorType = p
	}
	v.Qualifiers += "_" + p
	return ""
}

// String rebuilds the size name.
func (v VMSize) String() string {
	var b strings.Builder
	b.WriteString(v.Family)
	b.WriteString(v.Subfamily)
	b.WriteString(strconv.Itoa(v.CPUs))
	if v.ConstrainedCPUs > 0 {
		b.WriteString("-")
		b.WriteString(strconv.Itoa(v.ConstrainedCPUs))
	}
	b.WriteString(v.AdditiveFeatures)
	b.WriteString(v.Qualifiers)
	if v.Version != "" {
		b.WriteString("_")
		b.WriteString(v.Version)
	}
	if v.Promo {
		b.WriteString("_Promo")
	}
	return b.String()
}

// Constrained reports whether the size runs fewer vCPUs than its name's count (M8-2ms).
func (v VMSize) Constrained() bool { return v.ConstrainedCPUs > 0 }

// Series is the sku-series label: family, subfamily and features, then "_" and the version if any
// (NCads_v4, Dplds_v5, Bs).
func (v VMSize) Series() string {
	s := v.Family + v.Subfamily + v.AdditiveFeatures
	if v.Version != "" {
		s += "_" + v.Version
	}
	return s
}

// VersionLabel is the sku-version label: the version number without its "v", "1" when the name has no
// version.
func (v VMSize) VersionLabel() string {
	label, _ := versionNumber(v.Version)
	return label
}

// versionNumber strips the leading v or V: "" → "1" (first generation), "v2"/"V2" → "2", and reports
// false (no label) for anything else, such as "x2".
func versionNumber(version string) (string, bool) {
	if version == "" {
		return "1", true
	}
	if (version[0] != 'v' && version[0] != 'V') || len(version) == 1 {
		return "", false
	}
	if leadingRun(version[1:], isDigit) != len(version)-1 {
		return "", false
	}
	return version[1:], true
}

// parseCount reads a decimal count without leading zeros (except "0" itself).
func parseCount(s string) (n int, rest string, ok bool) {
	digits := leadingRun(s, isDigit)
	if digits == 0 || digits > maxCPUDigits || (digits > 1 && s[0] == '0') {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:digits])
	return n, s[digits:], err == nil
}

func isVersion(p string) bool {
	return len(p) >= 2 && p[0] == 'v' && p[1] != '0' && leadingRun(p[1:], isDigit) == len(p)-1
}

func leadingRun(s string, class func(byte) bool) int {
	i := 0
	for i < len(s) && class(s[i]) {
		i++
	}
	return i
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }
