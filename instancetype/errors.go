package instancetype

import (
	"errors"

	"github.com/napkit/napkit/api"
)

// Sentinel errors. Every error this package returns wraps exactly one of them, so callers branch with
// errors.Is instead of reading messages. Errors about one SKU, size name or option are
// *api.FieldError values of these classes (errors.As gives the field and value).
var (
	// ErrBadSKU marks an ARM Resource SKU record that cannot be read: a missing name, or a capability
	// whose value is not what ARM documents (for example MemoryGB "abc").
	ErrBadSKU = errors.New("bad SKU")
	// ErrBadSKUList marks SKU list JSON that is not an ARM list ({"value": [...]}) or a bare array.
	ErrBadSKUList = errors.New("bad SKU list")
	// ErrBadSize marks a VM size name that does not follow Azure's naming scheme.
	ErrBadSize = errors.New("bad VM size name")
	// ErrBadOptions marks an invalid Build option. It is bad input: errors.Is(err, api.ErrInvalid).
	ErrBadOptions = api.InvalidClass("bad options")
)

// skuErr is the *api.FieldError of class ErrBadSKU about a field of one SKU record: the value as
// found (ARM capabilities are strings, so it is quoted as found) and what was wanted.
func skuErr(sku, field, want, value string) *api.FieldError {
	return &api.FieldError{Kind: ErrBadSKU, Object: sku, Field: field, Value: value, Reason: "want " + want}
}

// skuMissing is the *api.FieldError of class ErrBadSKU about a field the record lacks.
func skuMissing(sku, field string) *api.FieldError {
	return &api.FieldError{Kind: ErrBadSKU, Object: sku, Field: field, Reason: "missing"}
}

// optionErr is the *api.FieldError of class ErrBadOptions about a Build option (a path such as
// "VMMemoryOverheadPercent" or "NodeClass.spec.osDiskSizeGB") and its value as given.
func optionErr(option string, value any, reason string, args ...any) *api.FieldError {
	return api.Invalid(ErrBadOptions, "", option, value, reason, args...)
}

// exclusionReason is what an Excluded entry says about err: a field error without its class (the
// exclusion's Kind says that), anything else as it reads.
func exclusionReason(err error) string {
	var fe *api.FieldError
	if errors.As(err, &fe) {
		return fe.Detail()
	}
	return err.Error()
}
