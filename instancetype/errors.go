package instancetype

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns wraps exactly one of them, so callers branch with
// errors.Is instead of reading messages.
var (
	// ErrBadSKU marks an ARM Resource SKU record that cannot be read: a missing name, or a capability
	// whose value is not what ARM documents (for example MemoryGB "abc").
	ErrBadSKU = errors.New("bad SKU")
	// ErrBadSKUList marks SKU list JSON that is not an ARM list ({"value": [...]}) or a bare array.
	ErrBadSKUList = errors.New("bad SKU list")
	// ErrBadSize marks a VM size name that does not follow Azure's naming scheme.
	ErrBadSize = errors.New("bad VM size name")
	// ErrBadOptions marks an invalid Build option.
	ErrBadOptions = errors.New("bad options")
)

// SKUError says which field of which SKU is wrong and what was found there. It wraps ErrBadSKU.
type SKUError struct {
	// SKU is the SKU name, or "(unnamed SKU)" when the record has none.
	SKU string
	// Field names the part of the record, e.g. "capability MemoryGB" or "name".
	Field string
	// Want describes an acceptable value, e.g. "a number"; empty when the field is missing.
	Want string
	// Value is the value found, unchanged.
	Value string
	// Missing is true when a required field is absent.
	Missing bool
}

func (e *SKUError) Error() string {
	if e.Missing {
		return fmt.Sprintf("%s: %s: missing", e.SKU, e.Field)
	}
	return fmt.Sprintf("%s: %s: want %s, got %q", e.SKU, e.Field, e.Want, e.Value)
}

// Unwrap lets errors.Is(err, ErrBadSKU) match.
func (e *SKUError) Unwrap() error { return ErrBadSKU }

// SizeError says why a VM size name does not parse. It wraps ErrBadSize.
type SizeError struct {
	// Size is the name as given.
	Size string
	// Reason says what is wrong, e.g. "no vCPU count after the family letters".
	Reason string
}

func (e *SizeError) Error() string { return fmt.Sprintf("VM size %q: %s", e.Size, e.Reason) }

// Unwrap lets errors.Is(err, ErrBadSize) match.
func (e *SizeError) Unwrap() error { return ErrBadSize }

// OptionError names a Build option and the value that is not allowed. It wraps ErrBadOptions.
type OptionError struct {
	// Option is the option's path, e.g. "VMMemoryOverheadPercent" or "NodeClass.spec.osDiskSizeGB".
	Option string
	// Value is the rejected value, formatted.
	Value string
	// Reason says what is allowed.
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("option %s: %s, got %s", e.Option, e.Reason, e.Value)
}

// Unwrap lets errors.Is(err, ErrBadOptions) match.
func (e *OptionError) Unwrap() error { return ErrBadOptions }
