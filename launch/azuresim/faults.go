package azuresim

import (
	"strings"
	"time"
)

// FaultKind is what an injected fault does.
type FaultKind string

// Fault kinds.
const (
	// FaultThrottle answers 429 with Retry-After (Fault.RetryAfter).
	FaultThrottle FaultKind = "Throttle"
	// FaultServerError answers 500.
	FaultServerError FaultKind = "ServerError"
	// FaultHang never answers; the call ends when the caller gives up.
	FaultHang FaultKind = "Hang"
	// FaultAllocationFailed fails a VM PUT with AllocationFailed.
	FaultAllocationFailed FaultKind = "AllocationFailed"
	// FaultZonalAllocationFailed fails a VM PUT with ZonalAllocationFailed.
	FaultZonalAllocationFailed FaultKind = "ZonalAllocationFailed"
	// FaultOverconstrainedZonal fails a VM PUT with OverconstrainedZonalAllocationRequest.
	FaultOverconstrainedZonal FaultKind = "OverconstrainedZonalAllocationRequest"
	// FaultOverconstrained fails a VM PUT with OverconstrainedAllocationRequest.
	FaultOverconstrained FaultKind = "OverconstrainedAllocationRequest"
	// FaultSkuNotAvailable fails a VM PUT with SkuNotAvailable.
	FaultSkuNotAvailable FaultKind = "SkuNotAvailable"
	// FaultFamilyQuota fails a VM PUT with the family cores quota message
	// (Current Limit: Fault.Limit).
	FaultFamilyQuota FaultKind = "FamilyQuota"
	// FaultLowPriorityQuota fails a VM PUT with the LowPriorityCores quota message.
	FaultLowPriorityQuota FaultKind = "LowPriorityQuota"
	// FaultRegionalQuota fails a VM PUT with the Total Regional Cores quota message.
	FaultRegionalQuota FaultKind = "RegionalQuota"
	// FaultVMSizeNotSupported refuses a Machine PUT with VMSizeNotSupported;
	// the size is shared by a batch, so the whole batch is refused.
	FaultVMSizeNotSupported FaultKind = "VMSizeNotSupported"
	// FaultMachineInternalError fails a Machine PUT inside AKS: 500
	// InternalOperationError, or in a batch that machine's detail of a
	// BatchMachineInternalServerError (or of a BatchMachineClientError when
	// another machine failed a client check).
	FaultMachineInternalError FaultKind = "MachineInternalError"
	// FaultCrashAfterNIC lets a NIC PUT succeed, then cuts the caller off
	// from that resource name, as if the controller died before creating the
	// VM: every later call naming it fails at the transport, without
	// retries, until Reconnect.
	FaultCrashAfterNIC FaultKind = "CrashAfterNIC"
	// FaultCrashAfterVM cuts the caller off when it sends the VM's first
	// extension PUT (which is not carried out), as if the controller died
	// after the VM was made but before its extensions: the VM exists without
	// them. Later calls naming the VM fail at the transport until Reconnect.
	FaultCrashAfterVM FaultKind = "CrashAfterVM"
)

// Fault is an injected failure. Empty match fields match anything.
type Fault struct {
	Kind FaultKind
	// Op limits the fault to one operation. Empty means a VM or Machine PUT
	// for the VM failure kinds, OpNICPut for FaultCrashAfterNIC, and any
	// operation for throttling, server errors and hangs.
	Op Op
	// Name limits the fault to one resource name.
	Name string
	// SKU and Zone ("1".."3" or Regional) limit a VM PUT fault.
	SKU  string
	Zone string
	// Count is how many times the fault fires; 0 means every time.
	Count int
	// RetryAfter is the FaultThrottle delay.
	RetryAfter time.Duration
	// Async delivers a VM failure through the operation instead of the
	// PUT response, leaving a Failed VM (or machine) behind, as ARM often does.
	Async bool
	// Limit is the quota limit quoted in quota messages.
	Limit int
}

// Inject adds a fault. Faults are checked in injection order; the first
// match fires.
func (s *Sim) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults removes every fault.
func (s *Sim) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// takeFault returns the first fault matching c that keep accepts and uses
// up one of its firings.
func (s *Sim) takeFault(c call, keep func(*Fault) bool) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeFaultLocked(c, keep)
}

// takeFaultLocked is takeFault with the state lock held.
func (s *Sim) takeFaultLocked(c call, keep func(*Fault) bool) (Fault, bool) {
	for i, f := range s.faults {
		if !f.matches(c) || !keep(f) {
			continue
		}
		fired := *f
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return fired, true
	}
	return Fault{}, false
}

func (f *Fault) matches(c call) bool {
	return f.matchesOp(c.op) &&
		(f.Name == "" || strings.EqualFold(f.Name, c.name)) &&
		(f.SKU == "" || strings.EqualFold(f.SKU, c.sku)) &&
		(f.Zone == "" || f.Zone == c.zone) &&
		// Azure only answers LowPriorityCores quota errors to spot VMs.
		(f.Kind != FaultLowPriorityQuota || c.spot)
}

// matchesOp applies Op, or the kind's default operations when Op is empty.
func (f *Fault) matchesOp(op Op) bool {
	if f.Op != "" {
		return f.Op == op
	}
	switch f.Kind {
	case FaultThrottle, FaultServerError, FaultHang:
		return true
	case FaultCrashAfterNIC:
		return op == OpNICPut
	case FaultCrashAfterVM:
		return op == OpExtensionPut
	case FaultVMSizeNotSupported, FaultMachineInternalError:
		return op == OpMachinePut
	default:
		return op == OpVMPut || op == OpMachinePut
	}
}

// vmFailure is the ARM error a VM-failure fault produces for call c.
func (s *Sim) vmFailure(f Fault, c call) (armError, bool) {
	switch f.Kind {
	case FaultAllocationFailed:
		return allocationFailed(false), true
	case FaultZonalAllocationFailed:
		return allocationFailed(true), true
	case FaultOverconstrainedZonal:
		return overconstrained(true), true
	case FaultOverconstrained:
		return overconstrained(false), true
	case FaultSkuNotAvailable:
		return skuNotAvailable(c.sku, s.opts.Location), true
	case FaultFamilyQuota:
		return quotaExceeded(s.opts.SKUs[c.sku].Family, s.opts.Location, f.Limit, f.Limit, s.opts.SKUs[c.sku].VCPUs), true
	case FaultLowPriorityQuota:
		return quotaExceeded(QuotaLowPriority, s.opts.Location, f.Limit, f.Limit, s.opts.SKUs[c.sku].VCPUs), true
	case FaultRegionalQuota:
		return quotaExceeded(QuotaTotalRegional, s.opts.Location, f.Limit, f.Limit, s.opts.SKUs[c.sku].VCPUs), true
	case FaultVMSizeNotSupported:
		return vmSizeNotSupported(c.sku, s.opts.SubscriptionID, s.opts.Location), true
	case FaultMachineInternalError:
		return internalOperationError(c.name), true
	}
	return armError{}, false
}

// transport reports the kinds that answer before the operation runs.
func (k FaultKind) transport() bool {
	return k == FaultThrottle || k == FaultServerError || k == FaultHang
}
