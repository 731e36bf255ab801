package azure

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/napkit/napkit/launch"
)

// This file is the only place that reads ARM error text: ARM gives quota
// failures one code (OperationNotAllowed) and tells them apart only in the
// message, so the reference table has to match on it.

// How long ARM's refusals keep an offering out of use (reference table 3.4).
const (
	ttlCapacity            = time.Hour
	ttlQuotaZeroLimit      = time.Hour
	ttlQuotaExhausted      = 10 * time.Minute
	ttlSKUNotAvailableSpot = time.Hour
	ttlSKUNotAvailable     = 23 * time.Hour
)

// zoneScope says which zones a failure marks.
type zoneScope int

const (
	markNothing   zoneScope = iota
	markAllSpot             // the global spot key: every spot offering
	markSKUZones            // every zone the SKU is offered in
	markPlacement           // every zone of the attempted placement scope (zonal or regional)
	markTriedZone           // the attempted zone only
)

// capacityScope says which capacity types a failure marks.
type capacityScope int

const (
	markTriedCapacityType capacityScope = iota
	markBothCapacityTypes
)

// armRule is one row of the reference table: an ARM error code, an optional
// message substring, and what the failure means and marks.
type armRule struct {
	code          string
	contains      string
	reason        launch.Reason
	zones         zoneScope
	capacityTypes capacityScope
	ttl           func(message, capacityType string) time.Duration
}

// armRules is reference table 3.4, in the order it is checked.
var armRules = []armRule{
	{code: "OperationNotAllowed", contains: "LowPriorityCores", reason: launch.ReasonSubscriptionQuotaReached,
		zones: markAllSpot, ttl: fixedTTL(ttlCapacity)},
	{code: "OperationNotAllowed", contains: "Family Cores quota", reason: launch.ReasonSubscriptionQuotaReached,
		zones: markSKUZones, ttl: familyQuotaTTL},
	{code: "SkuNotAvailable", reason: launch.ReasonSKUNotAvailable, zones: markPlacement, ttl: skuNotAvailableTTL},
	{code: "ZonalAllocationFailed", reason: launch.ReasonZonalAllocationFailure,
		zones: markTriedZone, capacityTypes: markBothCapacityTypes, ttl: fixedTTL(ttlCapacity)},
	{code: "AllocationFailed", reason: launch.ReasonAllocationFailure,
		zones: markPlacement, capacityTypes: markBothCapacityTypes, ttl: fixedTTL(ttlCapacity)},
	{code: "OverconstrainedZonalAllocationRequest", reason: launch.ReasonOverconstrainedZonalAllocation,
		zones: markTriedZone, ttl: fixedTTL(ttlCapacity)},
	{code: "OverconstrainedAllocationRequest", reason: launch.ReasonOverconstrainedAllocation,
		zones: markPlacement, ttl: fixedTTL(ttlCapacity)},
	{code: "OperationNotAllowed", contains: "exceeding approved Total Regional Cores quota",
		reason: launch.ReasonInsufficientCapacity, zones: markNothing},
}

func fixedTTL(d time.Duration) func(string, string) time.Duration {
	return func(string, string) time.Duration { return d }
}

// familyQuotaTTL: a zero limit will not be raised soon; usage may drop soon.
func familyQuotaTTL(message, _ string) time.Duration {
	if strings.Contains(message, "Current Limit: 0") {
		return ttlQuotaZeroLimit
	}
	return ttlQuotaExhausted
}

// skuNotAvailableTTL: spot availability changes within the hour, on-demand
// restrictions last about a day.
func skuNotAvailableTTL(_, capacityType string) time.Duration {
	if capacityType == launch.CapacityTypeSpot {
		return ttlSKUNotAvailableSpot
	}
	return ttlSKUNotAvailable
}

// ClassifyError turns an ARM failure of choice c into a typed launch.LaunchError and
// marks cache with the offerings the failure rules out, per reference table
// 3.4. Errors the table does not name become launch.ReasonThrottled (HTTP 429 after
// azcore's retries) or launch.ReasonCloudError, and mark nothing. A *launch.LaunchError is
// returned unchanged.
func ClassifyError(err error, nodeClaimName string, c launch.Choice, cache *launch.UnavailableOfferings) *launch.LaunchError {
	if le, ok := errors.AsType[*launch.LaunchError](err); ok {
		return le
	}
	af, ok := readARMFailure(err)
	if !ok {
		return launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, c, err)
	}
	return classifyFailure(af, armRules, err, nodeClaimName, c, cache)
}

// classifyFailure applies the first of rules that matches af; err is what
// the launch.LaunchError wraps.
func classifyFailure(af armFailure, rules []armRule, err error, nodeClaimName string, c launch.Choice, cache *launch.UnavailableOfferings) *launch.LaunchError {
	for _, rule := range rules {
		if rule.matches(af) {
			rule.mark(cache, c, af.message)
			return launch.NewLaunchError(rule.reason, nodeClaimName, c, err)
		}
	}
	if af.status == http.StatusTooManyRequests {
		return launch.NewLaunchError(launch.ReasonThrottled, nodeClaimName, c, err)
	}
	return launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, c, err)
}

func (r armRule) matches(af armFailure) bool {
	return strings.EqualFold(af.code, r.code) && strings.Contains(af.message, r.contains)
}

// mark records the rule's scope in cache.
func (r armRule) mark(cache *launch.UnavailableOfferings, c launch.Choice, message string) {
	ttl := time.Duration(0)
	if r.ttl != nil {
		ttl = r.ttl(message, c.Offering.CapacityType)
	}
	switch r.zones {
	case markNothing:
		return
	case markAllSpot:
		cache.MarkSpotUnavailable(ttl)
		return
	}
	for _, zone := range r.zonesOf(c) {
		for _, ct := range r.capacityTypesOf(c) {
			p := c.Placement()
			p.Zone, p.CapacityType = zone, ct
			cache.MarkUnavailable(p, ttl)
		}
	}
}

func (r armRule) zonesOf(c launch.Choice) []string {
	switch r.zones {
	case markSKUZones:
		return offeredZones(c, func(string) bool { return true })
	case markPlacement:
		zonal := isZonal(c.Offering.Zone)
		return offeredZones(c, func(z string) bool { return isZonal(z) == zonal })
	default:
		return []string{c.Offering.Zone}
	}
}

func (r armRule) capacityTypesOf(c launch.Choice) []string {
	if r.capacityTypes == markBothCapacityTypes {
		return []string{launch.CapacityTypeSpot, launch.CapacityTypeOnDemand}
	}
	return []string{c.Offering.CapacityType}
}

// offeredZones lists the distinct zones, kept by keep, of the candidate's
// offerings, starting with the attempted zone.
func offeredZones(c launch.Choice, keep func(string) bool) []string {
	zones := []string{c.Offering.Zone}
	for _, o := range c.Candidate.Offerings {
		if keep(o.Zone) && !slices.Contains(zones, o.Zone) {
			zones = append(zones, o.Zone)
		}
	}
	return zones
}

// armFailure is what classification reads from an ARM error.
type armFailure struct {
	code    string
	message string
	status  int
}

// readARMFailure extracts the ARM error code, HTTP status and message text
// (with any detail messages) from an *azcore.ResponseError.
func readARMFailure(err error) (armFailure, bool) {
	re, ok := errors.AsType[*azcore.ResponseError](err)
	if !ok {
		return armFailure{}, false
	}
	af := armFailure{code: re.ErrorCode, status: re.StatusCode}
	if re.RawResponse != nil {
		if body, err := runtime.Payload(re.RawResponse); err == nil {
			af.message = armMessage(body)
		}
	}
	return af, true
}

// armErrorBody is ARM's error shape, in a plain error response
// ({"error": ...}) and in a failed operation status ({"status": "Failed", "error": ...}).
type armErrorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details []armErrorBody `json:"details"`
}

func armMessage(body []byte) string {
	var envelope struct {
		Error armErrorBody `json:"error"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return string(body)
	}
	return envelope.Error.text()
}

func (b armErrorBody) text() string {
	parts := []string{b.Message}
	for _, d := range b.Details {
		parts = append(parts, d.text())
	}
	return strings.Join(parts, " ")
}
