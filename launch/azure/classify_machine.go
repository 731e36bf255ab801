package azure

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/napkit/napkit/launch"
)

// machineRules are the AKS Machine API rows of reference table 3.4: a size
// the subscription may not use in the region is out for every zone and both
// capacity types, for as long as an on-demand SkuNotAvailable.
var machineRules = []armRule{
	{code: "VMSizeNotSupported", reason: launch.ReasonSKUNotAvailable,
		zones: markSKUZones, capacityTypes: markBothCapacityTypes, ttl: fixedTTL(ttlSKUNotAvailable)},
	{code: "BadRequest", contains: "is not supported for subscription", reason: launch.ReasonSKUNotAvailable,
		zones: markSKUZones, capacityTypes: markBothCapacityTypes, ttl: fixedTTL(ttlSKUNotAvailable)},
}

// classifyMachineError is ClassifyError for AKS Machine failures. AKS wraps
// the VM failure that made a machine fail as the first detail of its
// provisioning error, so that detail is classified when there is one:
// provisioning (the machine's recorded error) if known, else the error body.
// The Machine API rows are checked before the shared table.
func classifyMachineError(err error, provisioning *armErrorBody, nodeClaimName string, c launch.Choice, cache *launch.UnavailableOfferings) *launch.LaunchError {
	if le, ok := errors.AsType[*launch.LaunchError](err); ok {
		return le
	}
	af, ok := readARMFailure(err)
	if provisioning == nil {
		provisioning = responseErrorBody(err)
	}
	if provisioning != nil {
		af = provisioning.failure(af.status)
	} else if !ok {
		return launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, c, err)
	}
	return classifyFailure(af, slices.Concat(machineRules, armRules), err, nodeClaimName, c, cache)
}

// failure is the detail that caused b (its first detail), else b itself.
func (b *armErrorBody) failure(status int) armFailure {
	cause := *b
	if len(b.Details) > 0 {
		cause = b.Details[0]
	}
	return armFailure{code: cause.Code, message: cause.text(), status: status}
}

// responseErrorBody is the ARM error body of err when it has details worth
// reading, else nil.
func responseErrorBody(err error) *armErrorBody {
	re, ok := errors.AsType[*azcore.ResponseError](err)
	if !ok || re.RawResponse == nil {
		return nil
	}
	body, readErr := runtime.Payload(re.RawResponse)
	if readErr != nil {
		return nil
	}
	var envelope struct {
		Error *armErrorBody `json:"error"`
	}
	if json.Unmarshal(body, &envelope) != nil || envelope.Error == nil || len(envelope.Error.Details) == 0 {
		return nil
	}
	return envelope.Error
}
