package azure

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// Defaults applied by NewLauncher to zero Options fields.
const (
	// DefaultPollFrequency is how often a long-running operation is polled
	// when ARM sends no Retry-After.
	DefaultPollFrequency = 3 * time.Second
	// DefaultPollRate is how many polls per second a launcher sends across
	// all its long-running operations: three quarters of its read budget
	// (DefaultRequestRates), so the launches' other reads (the existing-VM
	// check, lists) still find tokens. With hundreds of creates in flight
	// each is polled less often than PollFrequency instead of the polls
	// taking every read.
	DefaultPollRate = 15.0
	// DefaultMaxConcurrency bounds concurrent creates and deletes per launcher.
	// A create holds its slot while its VM's long-running operation runs (tens
	// of seconds on Azure), so the bound is a launch rate of slots per create
	// time: 50 would launch a 1,000-node burst in twenty waves. Azure's
	// provider bounds none (Azure/karpenter-provider-azure
	// pkg/cloudprovider/cloudprovider.go polls each create on its own
	// goroutine); throttled calls wait their Retry-After (azcore's retry policy).
	DefaultMaxConcurrency = 1000
	// DefaultTryTimeout bounds one HTTP try when ClientOptions set none, so a
	// hung connection is retried instead of stalling a launch.
	DefaultTryTimeout = 2 * time.Minute
	// DefaultNetworkLookupTTL is how long looked-up load balancer pools and
	// the managed NSG are reused (the reference caches the LB list 2 h).
	DefaultNetworkLookupTTL = 2 * time.Hour
	// DefaultMachineAPIVersion is the AKS API version of the Machine calls:
	// Machines_CreateOrUpdate is only in preview versions so far.
	DefaultMachineAPIVersion = "2025-10-02-preview"
	// DefaultBatchIdle and DefaultBatchMax close a header batch (mode
	// aksmachineapiheaderbatch) after that long without a new create, or
	// that long after its first create, whichever comes first.
	DefaultBatchIdle = time.Second
	DefaultBatchMax  = 5 * time.Second
	// MaxBatchSize is the most machines one header batch may create, AKS's
	// limit (karpenter-provider-azure's AKSMachineAPIHeaderBatchMaxSize); a
	// batch that reaches BatchMaxSize is sent at once.
	MaxBatchSize = bootstrap.MaxBatchSize
	// cleanupTimeout bounds the removal of a failed launch's resources, which
	// runs even after the caller's context ends.
	cleanupTimeout = 2 * time.Minute
)

// Options configures an Launcher.
type Options struct {
	// SubscriptionID, ResourceGroup (the node resource group) and Location
	// say where VMs and NICs go.
	SubscriptionID string
	ResourceGroup  string
	Location       string
	// ClusterName is written to the TagCluster tag and scopes List and GC; in
	// the Machine API modes it also names the managed cluster.
	ClusterName string
	// Mode is the provisioning mode; "" is aksscriptless. The VM-based modes
	// create a NIC and a VM; the Machine API modes PUT an AKS Machine.
	Mode imagefamily.Mode
	// ClusterResourceGroup (the managed cluster's own group), MachinesPool
	// (the agent pool machines go in) and MachineAPIVersion (default
	// DefaultMachineAPIVersion) address AKS Machines; the first two are
	// required in the Machine API modes.
	ClusterResourceGroup string
	MachinesPool         string
	MachineAPIVersion    string
	// BatchIdle, BatchMax and BatchMaxSize shape the batches of mode
	// aksmachineapiheaderbatch: concurrent creates whose Machine bodies
	// differ only in name, zones and tags go out as one PUT, sent after
	// BatchIdle without a new create (default DefaultBatchIdle), BatchMax
	// after the batch opened (default DefaultBatchMax), or once it holds
	// BatchMaxSize machines (default and at most MaxBatchSize). Other modes
	// ignore them.
	BatchIdle    time.Duration
	BatchMax     time.Duration
	BatchMaxSize int
	// LoadBalancerBackendPools are the backend pools every NIC joins unless
	// its launch.Request names some. When empty, the pools of the cluster's
	// kubernetes and kubernetes-internal load balancers are looked up.
	LoadBalancerBackendPools []string
	// NetworkSecurityGroupID is attached to NICs on custom VNETs unless their
	// launch.Request names one. When empty, AKS's managed NSG is looked up.
	NetworkSecurityGroupID string
	// DisableNetworkLookup turns both lookups off.
	DisableNetworkLookup bool
	// NetworkLookupTTL is how long lookups are reused (default 2 h).
	NetworkLookupTTL time.Duration
	// Credential authenticates ARM requests.
	Credential azcore.TokenCredential
	// ClientOptions configure the azcore pipeline: the transport seam (a
	// simulated Azure in tests), retries (Retry-After is honoured by azcore's
	// retry policy) and cloud. Nil means azcore's defaults.
	ClientOptions *arm.ClientOptions
	// PollFrequency is the long-running-operation polling interval.
	PollFrequency time.Duration
	// RequestRates bound the ARM calls per second, per operation type
	// (default DefaultRequestRates(), four fifths of ARM's refill).
	RequestRates RequestRates
	// PollRate bounds the polls per second across all operations in flight
	// (default DefaultPollRate; math.Inf(1) for none): an operation is polled
	// every PollFrequency or when the launcher's share of polls comes round,
	// whichever is later.
	PollRate float64
	// MaxConcurrency bounds creates and deletes in flight at once.
	MaxConcurrency int
	// MaxAttempts bounds how many offerings one Create tries.
	MaxAttempts int
	// Seed makes offering tie-breaks reproducible.
	Seed uint64
	// Clock is the time source (time.Now if nil).
	Clock func() time.Time
	// Cache is the unavailable-offerings cache to read and mark; share it
	// with the instance type catalogue. Nil means a private one.
	Cache *launch.UnavailableOfferings
	// Logger receives launch events; never request payloads. Nil discards.
	Logger *slog.Logger
}

// validate reports every missing or out-of-range option.
func (o Options) validate() error {
	var errs []error
	for _, f := range []struct{ name, value string }{
		{"SubscriptionID", o.SubscriptionID}, {"ResourceGroup", o.ResourceGroup},
		{"Location", o.Location}, {"ClusterName", o.ClusterName},
	} {
		if f.value == "" {
			errs = append(errs, fmt.Errorf("%s is required", f.name))
		}
	}
	if o.Credential == nil {
		errs = append(errs, errors.New("Credential is required"))
	}
	errs = append(errs, o.validateMode()...)
	for _, f := range []struct {
		name  string
		value int64
	}{
		{"PollFrequency", int64(o.PollFrequency)}, {"MaxConcurrency", int64(o.MaxConcurrency)}, {"MaxAttempts", int64(o.MaxAttempts)},
		{"NetworkLookupTTL", int64(o.NetworkLookupTTL)}, {"BatchIdle", int64(o.BatchIdle)}, {"BatchMax", int64(o.BatchMax)},
	} {
		if f.value < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %d", f.name, f.value))
		}
	}
	if name, v, bad := o.RequestRates.invalid(); bad {
		errs = append(errs, fmt.Errorf("RequestRates.%s must not be negative, got %v", name, v))
	}
	if o.PollRate < 0 || math.IsNaN(o.PollRate) {
		errs = append(errs, fmt.Errorf("PollRate must not be negative, got %v", o.PollRate))
	}
	if o.BatchMaxSize < 0 || o.BatchMaxSize > MaxBatchSize {
		errs = append(errs, fmt.Errorf("BatchMaxSize must be between 1 and %d (AKS's limit per batch), got %d", MaxBatchSize, o.BatchMaxSize))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", launch.ErrInvalidOptions, errors.Join(errs...))
}

// withDefaults fills zero fields.
func (o Options) withDefaults() Options {
	if o.PollFrequency == 0 {
		o.PollFrequency = DefaultPollFrequency
	}
	if o.PollRate == 0 {
		o.PollRate = DefaultPollRate
	}
	if o.MaxConcurrency == 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = launch.DefaultMaxAttempts
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NetworkLookupTTL == 0 {
		o.NetworkLookupTTL = DefaultNetworkLookupTTL
	}
	if o.MachineAPIVersion == "" {
		o.MachineAPIVersion = DefaultMachineAPIVersion
	}
	if o.BatchIdle == 0 {
		o.BatchIdle = DefaultBatchIdle
	}
	if o.BatchMax == 0 {
		o.BatchMax = DefaultBatchMax
	}
	if o.BatchMaxSize == 0 {
		o.BatchMaxSize = MaxBatchSize
	}
	o.Mode, _ = o.Mode.Resolve() // validate rejected unknown modes
	if o.Cache == nil {
		o.Cache = launch.NewUnavailableOfferings(o.Clock)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	o.RequestRates = o.RequestRates.withDefaults()
	o.ClientOptions = clientOptions(o.ClientOptions, newBudget(o.RequestRates))
	return o
}

// clientOptions copies opts, gives it a per-try timeout if it has none, and
// adds the launcher's request budget, shared by all its clients.
func clientOptions(opts *arm.ClientOptions, b *budget) *arm.ClientOptions {
	out := &arm.ClientOptions{}
	if opts != nil {
		*out = *opts
	}
	out.PerCallPolicies = append(slices.Clone(out.PerCallPolicies), b)
	if out.Retry.TryTimeout == 0 {
		out.Retry.TryTimeout = DefaultTryTimeout
	}
	return out
}
