package azure

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"golang.org/x/sync/semaphore"

	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/launch"
)

// Launcher is the launch.Launcher for Azure VMs, on the real armcompute and
// armnetwork clients. It is safe for concurrent use.
type Launcher struct {
	opts Options
	azureClients
	// pools and nsg cache the network lookups; billing says whether VMs get
	// the AKS billing extension in this cloud.
	pools   *lookupCache[[]string]
	nsg     *lookupCache[string]
	billing bool
	sem     *semaphore.Weighted
	pace    pacer
	// batcher collects Machine creates into header batches; it is nil
	// outside mode aksmachineapiheaderbatch.
	batcher *machineBatcher
	// watch serves the Machine API modes' polls from shared lists of the pool; nil in the VM modes.
	watch *machineWatch
}

var (
	_ launch.Launcher        = (*Launcher)(nil)
	_ launch.NodeClaimFinder = (*Launcher)(nil)
)

// NewLauncher validates opts, fills defaults and builds the ARM clients.
func NewLauncher(opts Options) (*Launcher, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	clients, err := newAzureClients(opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", launch.ErrInvalidOptions, err)
	}
	l := &Launcher{
		opts:         opts,
		azureClients: clients,
		pools:        newLookupCache[[]string](opts.NetworkLookupTTL, opts.Clock),
		nsg:          newLookupCache[string](opts.NetworkLookupTTL, opts.Clock),
		billing:      billsByExtension(opts.ClientOptions.Cloud),
		sem:          semaphore.NewWeighted(int64(opts.MaxConcurrency)),
		pace:         newPacer(opts.PollFrequency, opts.PollRate),
	}
	if opts.Mode == imagefamily.ModeMachineAPIHeaderBatch {
		l.batcher = newMachineBatcher(opts.BatchIdle, opts.BatchMax, opts.BatchMaxSize, l.putMachineBatch, l.deleteAbandoned, opts.Logger)
	}
	if opts.Mode.IsMachineAPI() {
		l.watch = newMachineWatch(l.listAnswered, opts.PollFrequency)
	}
	return l, nil
}

// Cache returns the unavailable-offerings cache the launcher marks.
func (l *Launcher) Cache() *launch.UnavailableOfferings { return l.opts.Cache }

// acquire takes one of MaxConcurrency slots for a create or delete.
func (l *Launcher) acquire(ctx context.Context) (release func(), err error) {
	if err := l.sem.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	return func() { l.sem.Release(1) }, nil
}

// rand returns the tie-break source of one NodeClaim: the same seed and name
// give the same choices however launches interleave.
func (l *Launcher) rand(nodeClaimName string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(nodeClaimName))
	return rand.New(rand.NewPCG(l.opts.Seed, h.Sum64()))
}

// providerID is the provider ID of a VM in the launcher's resource group.
func (l *Launcher) providerID(vmName string) string {
	return ProviderID(l.opts.SubscriptionID, l.opts.ResourceGroup, vmName)
}

// nicID is the resource ID of a NIC in the launcher's resource group.
func (l *Launcher) nicID(name string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/networkInterfaces/%s",
		l.opts.SubscriptionID, l.opts.ResourceGroup, name)
}

// isNotFound reports an ARM 404.
func isNotFound(err error) bool {
	re, ok := errors.AsType[*azcore.ResponseError](err)
	return ok && re.StatusCode == http.StatusNotFound
}

// armRejected reports an ARM 4xx answer: ARM looked at the request and
// refused it, so it made nothing.
func armRejected(err error) bool {
	re, ok := errors.AsType[*azcore.ResponseError](err)
	return ok && re.StatusCode >= 400 && re.StatusCode < 500 && re.StatusCode != http.StatusRequestTimeout
}

// cloudError wraps an ARM failure of a non-launch operation with the sentinel
// callers test for.
func cloudError(op, name string, err error) error {
	sentinel := launch.ErrCloud
	if isThrottled(err) {
		sentinel = launch.ErrThrottled
	}
	return fmt.Errorf("%s %s: %w: %w", op, name, sentinel, err)
}
