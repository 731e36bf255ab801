package launch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Sentinel errors. A [*LaunchError] matches, through errors.Is, the sentinels of
// its [Reason]; every reason that means "the cloud could not supply this
// offering now" also matches [ErrInsufficientCapacity], so a caller can re-plan
// on the updated [UnavailableOfferings] without knowing every reason.
var (
	ErrInsufficientCapacity  = errors.New("insufficient capacity")
	ErrQuota                 = errors.New("subscription quota reached")
	ErrSKUNotAvailable       = errors.New("SKU not available")
	ErrZonalAllocationFailed = errors.New("zonal allocation failed")
	ErrAllocationFailed      = errors.New("allocation failed")
	ErrOverconstrained       = errors.New("overconstrained allocation request")
	ErrThrottled             = errors.New("throttled by Azure Resource Manager")
	ErrCloud                 = errors.New("azure resource manager request failed")
	ErrInvalidRequest        = errors.New("invalid launch request")
	ErrNotFound              = errors.New("instance not found")
	ErrInvalidProviderID     = errors.New("invalid provider ID")
	ErrInvalidOptions        = errors.New("invalid launcher options")
)

// Reason names why a launch failed, in the vocabulary of Karpenter's
// CreateError condition reasons.
type Reason string

// Launch failure reasons.
const (
	ReasonInsufficientCapacity           Reason = "InsufficientCapacity"
	ReasonSubscriptionQuotaReached       Reason = "SubscriptionQuotaReached"
	ReasonSKUNotAvailable                Reason = "SKUNotAvailable"
	ReasonZonalAllocationFailure         Reason = "ZonalAllocationFailure"
	ReasonAllocationFailure              Reason = "AllocationFailure"
	ReasonOverconstrainedZonalAllocation Reason = "OverconstrainedZonalAllocationFailure"
	ReasonOverconstrainedAllocation      Reason = "OverconstrainedAllocationFailure"
	ReasonThrottled                      Reason = "Throttled"
	ReasonInvalidRequest                 Reason = "InvalidRequest"
	ReasonCloudError                     Reason = "CloudError"
)

// sentinels returns the errors a LaunchError with reason r matches.
func (r Reason) sentinels() []error {
	switch r {
	case ReasonInsufficientCapacity:
		return []error{ErrInsufficientCapacity}
	case ReasonSubscriptionQuotaReached:
		return []error{ErrQuota, ErrInsufficientCapacity}
	case ReasonSKUNotAvailable:
		return []error{ErrSKUNotAvailable, ErrInsufficientCapacity}
	case ReasonZonalAllocationFailure:
		return []error{ErrZonalAllocationFailed, ErrInsufficientCapacity}
	case ReasonAllocationFailure:
		return []error{ErrAllocationFailed, ErrInsufficientCapacity}
	case ReasonOverconstrainedZonalAllocation, ReasonOverconstrainedAllocation:
		return []error{ErrOverconstrained, ErrInsufficientCapacity}
	case ReasonThrottled:
		return []error{ErrThrottled}
	case ReasonInvalidRequest:
		return []error{ErrInvalidRequest}
	default:
		return []error{ErrCloud}
	}
}

// OfferingSpecific reports whether another offering may succeed where this
// one failed. Throttling, regional quota and server faults hit every
// offering alike, so trying the next one would only add load.
func (r Reason) OfferingSpecific() bool {
	switch r {
	case ReasonSubscriptionQuotaReached, ReasonSKUNotAvailable, ReasonZonalAllocationFailure,
		ReasonAllocationFailure, ReasonOverconstrainedZonalAllocation, ReasonOverconstrainedAllocation:
		return true
	default:
		return false
	}
}

// LaunchError is the typed error every [Launcher.Create] failure returns. It
// names the offering that was tried last (empty when none was tried) and wraps
// the underlying cause, so errors.As still reaches an *azcore.ResponseError.
type LaunchError struct {
	Reason        Reason
	NodeClaimName string
	SKU           string
	Zone          string
	CapacityType  string
	Err           error
}

// Error describes the failure without any request payload.
func (e *LaunchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "launch nodeclaim %q", e.NodeClaimName)
	if e.SKU != "" {
		fmt.Fprintf(&b, " as %s %s in zone %s", e.SKU, e.CapacityType, e.Zone)
	}
	fmt.Fprintf(&b, ": %s", e.Reason)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *LaunchError) Unwrap() error { return e.Err }

// Is reports whether target is one of the sentinels of the error's reason.
func (e *LaunchError) Is(target error) bool {
	return slices.Contains(e.Reason.sentinels(), target)
}

// NewLaunchError builds a LaunchError for the offering in c (zero Choice
// when no offering was tried).
func NewLaunchError(reason Reason, nodeClaim string, c Choice, err error) *LaunchError {
	return &LaunchError{
		Reason:        reason,
		NodeClaimName: nodeClaim,
		SKU:           c.Candidate.SKU,
		Zone:          c.Offering.Zone,
		CapacityType:  c.Offering.CapacityType,
		Err:           err,
	}
}
