package azuresim

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Quota usage names besides VM families, as the Compute Usage API names them.
const (
	QuotaLowPriority   = "lowPriorityCores"
	QuotaTotalRegional = "cores"
)

// Regional is the zone of a VM placed without an availability zone in
// Slot and Fault (ARM itself sends no zones for it).
const Regional = "0"

// SKU is a VM size the simulated region offers.
type SKU struct {
	Family string
	VCPUs  int
}

// Slot is a VM size in one zone ("1", "2", "3", or Regional).
type Slot struct {
	SKU  string
	Zone string
}

// Options configure a Sim. Zero values are usable.
type Options struct {
	// SubscriptionID and Location default to DefaultSubscriptionID and
	// DefaultLocation.
	SubscriptionID string
	Location       string
	// Latency delays every call; OpLatency overrides it per operation.
	Latency   time.Duration
	OpLatency map[Op]time.Duration
	// SKUs are the VM sizes offered; a PUT of any other size is SkuNotAvailable.
	// Nil offers DefaultSKUs().
	SKUs map[string]SKU
	// Capacity is how many live VMs fit per size and zone; missing slots are
	// unlimited. Overflow fails the VM's operation with (Zonal)AllocationFailed.
	Capacity map[Slot]int
	// Quota is the vCPU limit per usage name (a family, QuotaLowPriority,
	// QuotaTotalRegional); missing usages are unlimited. Spot VMs count
	// against QuotaLowPriority only.
	Quota map[string]int
	// OperationPolls is how many polls answer InProgress before a
	// long-running operation ends.
	OperationPolls int
	// OperationTime is, per operation that starts a long-running one (OpVMPut,
	// OpNICPut, ...), how long that one answers InProgress after it was
	// accepted, by Clock: a VM create takes tens of seconds on Azure, and a
	// caller that holds a slot while it polls is only slow at that speed.
	OperationTime map[Op]time.Duration
	// PageSize is the list page size (default 20).
	PageSize int
	// Clock stamps VM creation times and refills RateLimits' buckets
	// (time.Now if nil).
	Clock func() time.Time
	// RateLimits, if set, throttle ARM calls as ARM's token buckets do per
	// subscription: a call that finds its operation type's bucket empty gets
	// 429 with Retry-After, and the others report the tokens left in
	// x-ms-ratelimit-remaining-subscription-{reads,writes,deletes}. Nil is
	// unlimited; ARMSubscriptionLimits() are Azure's figures.
	RateLimits *RateLimits
}

// Defaults for Options.
const (
	DefaultSubscriptionID = "00000000-0000-0000-0000-000000000000"
	DefaultLocation       = "westus2"
	defaultPageSize       = 20
)

// DefaultSKUs is a small catalogue of common sizes.
func DefaultSKUs() map[string]SKU {
	return map[string]SKU{
		"Standard_D2s_v5":  {Family: "standardDSv5Family", VCPUs: 2},
		"Standard_D4s_v5":  {Family: "standardDSv5Family", VCPUs: 4},
		"Standard_D8s_v5":  {Family: "standardDSv5Family", VCPUs: 8},
		"Standard_D16s_v5": {Family: "standardDSv5Family", VCPUs: 16},
		"Standard_E4s_v5":  {Family: "standardESv5Family", VCPUs: 4},
		"Standard_F4s_v2":  {Family: "standardFSv2Family", VCPUs: 4},
	}
}

// Sim is the simulated Azure Resource Manager. It is safe for concurrent use.
type Sim struct {
	opts Options

	mu         sync.Mutex
	vms        map[string]*vmRecord
	nics       map[string]*nicRecord
	machines   map[string]*machineRecord
	lbs        map[string]*armnetwork.LoadBalancer
	nsgs       map[string]*armnetwork.SecurityGroup
	operations map[string]*operation
	faults     []*Fault
	severed    map[string]bool
	records    []Record
	nextID     int
	lists      lists
	limiter    *limiter // nil without Options.RateLimits; has its own lock
}

type vmRecord struct {
	rg, sku, zone string
	spot          bool
	model         armcompute.VirtualMachine
	op            *operation // the creation, which GETs also advance
	extensions    map[string]armcompute.VirtualMachineExtension
}

type nicRecord struct {
	rg    string
	model armnetwork.Interface
}

// New returns an empty simulated Azure.
func New(opts Options) *Sim {
	if opts.SubscriptionID == "" {
		opts.SubscriptionID = DefaultSubscriptionID
	}
	if opts.Location == "" {
		opts.Location = DefaultLocation
	}
	if opts.SKUs == nil {
		opts.SKUs = DefaultSKUs()
	}
	if opts.PageSize <= 0 {
		opts.PageSize = defaultPageSize
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &Sim{
		opts:       opts,
		vms:        map[string]*vmRecord{},
		nics:       map[string]*nicRecord{},
		machines:   map[string]*machineRecord{},
		lbs:        map[string]*armnetwork.LoadBalancer{},
		nsgs:       map[string]*armnetwork.SecurityGroup{},
		operations: map[string]*operation{},
		severed:    map[string]bool{},
		limiter:    newLimiter(opts.RateLimits, opts.Clock),
	}
}

// SubscriptionID is the simulated subscription.
func (s *Sim) SubscriptionID() string { return s.opts.SubscriptionID }

// Location is the simulated region.
func (s *Sim) Location() string { return s.opts.Location }

// key indexes resources case-insensitively by group and name, as ARM does.
func key(rg, name string) string { return strings.ToLower(rg + "/" + name) }

// VMNames lists the VMs, sorted.
func (s *Sim) VMNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, vm := range s.vms {
		names = append(names, *vm.model.Name)
	}
	slices.Sort(names)
	return names
}

// NICNames lists the NICs, sorted.
func (s *Sim) NICNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, nic := range s.nics {
		names = append(names, *nic.model.Name)
	}
	slices.Sort(names)
	return names
}

// SetVMState overwrites a VM's provisioning state, e.g. to Deleting.
func (s *Sim) SetVMState(rg, name, state string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	vm, ok := s.vms[key(rg, name)]
	if ok {
		vm.model.Properties.ProvisioningState = &state
	}
	return ok
}

// SetVMCreated overwrites a VM's creation time, e.g. to age it past a grace period.
func (s *Sim) SetVMCreated(rg, name string, t time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	vm, ok := s.vms[key(rg, name)]
	if ok {
		vm.model.Properties.TimeCreated = &t
	}
	return ok
}

// sever cuts the caller off from a resource name (a crash fault).
func (s *Sim) sever(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.severed[key("", name)] = true
}

// Reconnect ends every crash a FaultCrashAfterNIC or FaultCrashAfterVM
// started: the crashed controller is back (restarted).
func (s *Sim) Reconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.severed)
}

// newID returns a fresh operation or resource ID suffix.
func (s *Sim) newID() int {
	s.nextID++
	return s.nextID
}
