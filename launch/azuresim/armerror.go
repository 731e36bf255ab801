package azuresim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// armError is ARM's error body.
type armError struct {
	Code    string     `json:"code"`
	Message string     `json:"message"`
	Details []armError `json:"details,omitempty"`
	// Target names the machine a batch PUT's detail is about.
	Target string `json:"target,omitempty"`
}

// reply is one HTTP answer before it becomes an *http.Response.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// jsonReply marshals v as the body.
func jsonReply(status int, v any) reply {
	body, err := json.Marshal(v)
	if err != nil {
		return errorReply(http.StatusInternalServerError, "InternalServerError", err.Error())
	}
	return reply{status: status, header: http.Header{"Content-Type": {"application/json"}}, body: body}
}

// errorReply is an ARM error response.
func errorReply(status int, code, message string) reply {
	return jsonReply(status, map[string]armError{"error": {Code: code, Message: message}})
}

// emptyReply has no body.
func emptyReply(status int) reply { return reply{status: status, header: http.Header{}} }

// throttled is a write's 429 with Retry-After (see throttledFor).
func throttled(after time.Duration) reply { return throttledFor("Write", after) }

// throttledFor is a 429 with Retry-After for an operation type ARM names
// (Read, Write, Delete). ARM sends whole seconds; the millisecond header,
// which azcore prefers, keeps sub-second test delays exact.
func throttledFor(opType string, after time.Duration) reply {
	r := errorReply(http.StatusTooManyRequests, "TooManyRequests",
		"The request is being throttled as the limit has been reached for operation type - "+opType+".")
	secs := int((after + time.Second - 1) / time.Second)
	r.header.Set("Retry-After", strconv.Itoa(secs))
	r.header.Set("x-ms-retry-after-ms", strconv.FormatInt(after.Milliseconds(), 10))
	return r
}

func notFound(kind, rg, name string) reply {
	return errorReply(http.StatusNotFound, "ResourceNotFound",
		fmt.Sprintf("The Resource '%s/%s' under resource group '%s' was not found.", kind, name, rg))
}

func badRequest(code, format string, args ...any) reply {
	return errorReply(http.StatusBadRequest, code, fmt.Sprintf(format, args...))
}

// Messages ARM sends for capacity and quota failures; the launcher's
// classifier reads some of their text, as it must with real ARM.
func allocationFailed(zonal bool) armError {
	if zonal {
		return armError{Code: "ZonalAllocationFailed", Message: "Allocation failed. We do not have sufficient capacity for the requested VM size in this zone. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance"}
	}
	return armError{Code: "AllocationFailed", Message: "Allocation failed. We do not have sufficient capacity for the requested VM size in this region. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance"}
}

func overconstrained(zonal bool) armError {
	msg := "Allocation failed. VM(s) with the following constraints cannot be allocated, because the condition is too restrictive. Please remove some constraints and try again."
	if zonal {
		return armError{Code: "OverconstrainedZonalAllocationRequest", Message: msg + " Constraints applied are: Availability Zone, Networking Constraints."}
	}
	return armError{Code: "OverconstrainedAllocationRequest", Message: msg + " Constraints applied are: Networking Constraints."}
}

func skuNotAvailable(sku, location string) armError {
	return armError{Code: "SkuNotAvailable", Message: fmt.Sprintf("The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: %s' is currently not available in location '%s'. Please try another size or deploy to a different location or zones. See https://aka.ms/azureskunotavailable for details.", sku, location)}
}

// quotaExceeded is OperationNotAllowed for a usage: a family name,
// QuotaLowPriority or QuotaTotalRegional.
func quotaExceeded(usage, location string, limit, current, required int) armError {
	var what string
	switch usage {
	case QuotaLowPriority:
		what = "LowPriorityCores"
	case QuotaTotalRegional:
		what = "Total Regional Cores"
	default:
		what = usage + " Cores"
	}
	return armError{Code: "OperationNotAllowed", Message: fmt.Sprintf(
		"Operation could not be completed as it results in exceeding approved %s quota. Additional details - Deployment Model: Resource Manager, Location: %s, Current Limit: %d, Current Usage: %d, Additional Required: %d, (Minimum) New Limit Required: %d. Submit a request for Quota increase at https://aka.ms/ProdportalCRP by specifying parameters listed in the 'Details' section for deployment to succeed.",
		what, location, limit, current, required, current+required)}
}

// vmSizeNotSupported is the AKS Machine API's refusal of a size the
// subscription may not use in the region (reference table 3.4).
func vmSizeNotSupported(sku, subscription, location string) armError {
	return armError{Code: "VMSizeNotSupported", Message: fmt.Sprintf(
		"Virtual Machine size: '%s' is not supported for subscription %s in location '%s'. Please refer to aka.ms/aks/vm-size-selector to find supported VM sizes in location '%s'.",
		sku, subscription, location, location)}
}
