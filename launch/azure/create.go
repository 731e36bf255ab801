package azure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/napkit/napkit/launch"
)

// Create launches req: it reuses an existing VM (or AKS Machine) of the
// NodeClaim's name, else tries up to MaxAttempts offerings, best first, until
// one launches. Every ARM failure marks the cache (see ClassifyError), and
// failures that other offerings could avoid move on to the next one. The
// final failure is returned as a *launch.LaunchError.
func (l *Launcher) Create(ctx context.Context, req *launch.Request) (*launch.Instance, error) {
	if req == nil {
		return nil, launch.NewLaunchError(launch.ReasonInvalidRequest, "", launch.Choice{}, errors.New("nil request"))
	}
	if err := req.ValidateFor(l.opts.Mode); err != nil {
		return nil, launch.NewLaunchError(launch.ReasonInvalidRequest, req.NodeClaimName, launch.Choice{}, err)
	}
	release, err := l.acquire(ctx)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, req.NodeClaimName, launch.Choice{}, err)
	}
	defer release()
	if l.opts.Mode.IsMachineAPI() {
		return l.createMachine(ctx, req)
	}
	return l.createVM(ctx, req)
}

// createVM makes a NIC and a VM. Looking for an existing VM and resolving
// the NIC's network are independent reads, so they run side by side.
func (l *Launcher) createVM(ctx context.Context, req *launch.Request) (*launch.Instance, error) {
	var existing *launch.Instance
	var net nicNetwork
	var reuseErr, netErr error
	var wg sync.WaitGroup
	wg.Go(func() { existing, reuseErr = l.reuse(ctx, req.NodeClaimName) })
	wg.Go(func() { net, netErr = l.networkFor(ctx, req) })
	wg.Wait()
	if existing != nil || reuseErr != nil {
		return existing, reuseErr
	}
	if netErr != nil {
		return nil, ClassifyError(netErr, req.NodeClaimName, launch.Choice{}, nil)
	}
	return l.launch(ctx, req, func(c launch.Choice) (*launch.Instance, *launch.LaunchError) { return l.attemptVM(ctx, req, c, net) })
}

// launch tries offerings until one launches or a failure says the others
// would fail too.
func (l *Launcher) launch(ctx context.Context, req *launch.Request, attempt func(launch.Choice) (*launch.Instance, *launch.LaunchError)) (*launch.Instance, error) {
	rnd := l.rand(req.NodeClaimName)
	tried := map[string]bool{}
	usable := func(c launch.Choice) bool {
		return c.Offering.Available && !tried[c.Placement().Key()] && !l.opts.Cache.IsUnavailable(c.Placement())
	}
	var last *launch.LaunchError
	for range l.opts.MaxAttempts {
		c, ok := launch.ChooseUsable(req.Candidates, rnd, usable)
		if !ok {
			break
		}
		tried[c.Placement().Key()] = true
		inst, err := attempt(c)
		if err == nil {
			return inst, nil
		}
		last = err
		if !err.Reason.OfferingSpecific() {
			break
		}
	}
	if last != nil {
		return nil, last
	}
	return nil, launch.NewLaunchError(launch.ReasonInsufficientCapacity, req.NodeClaimName, launch.Choice{},
		fmt.Errorf("no available offering among %d candidates", len(req.Candidates)))
}

// attemptVM makes the NIC, the VM and its extensions for one offering; on
// failure it removes what it made and classifies the error.
func (l *Launcher) attemptVM(ctx context.Context, req *launch.Request, c launch.Choice, net nicNetwork) (*launch.Instance, *launch.LaunchError) {
	name := ResourceName(req.NodeClaimName)
	b, err := req.ResolveBootstrap(ctx, c, l.opts.Mode)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonInvalidRequest, req.NodeClaimName, c, err)
	}
	log := l.attemptLogger(req, c)
	log.Info("launching")
	tags := resourceTags(l.opts.ClusterName, req.NodePool, req.Tags)
	nicID, err := l.putNIC(ctx, req, c, net, tags)
	if err != nil {
		return nil, l.failed(ctx, log, req, c, err, false)
	}
	poller, err := l.vms.BeginCreateOrUpdate(ctx, l.opts.ResourceGroup, name, l.vmBody(req, b, c, nicID, tags), nil)
	if err != nil {
		return nil, l.failed(ctx, log, req, c, err, !armRejected(err))
	}
	resp, err := pollUntilDone(ctx, poller, l.pace)
	if err == nil {
		err = l.addExtensions(ctx, name, b, tags)
	}
	if err != nil {
		return nil, l.failed(ctx, log, req, c, err, true)
	}
	inst, err := l.instance(&resp.VirtualMachine)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, req.NodeClaimName, c, err)
	}
	log.Info("launched", "providerID", inst.ProviderID)
	return inst, nil
}

// attemptLogger logs one attempt's offering, never its payloads.
func (l *Launcher) attemptLogger(req *launch.Request, c launch.Choice) *slog.Logger {
	return l.opts.Logger.With("nodeClaim", req.NodeClaimName, "sku", c.Candidate.SKU,
		"zone", c.Offering.Zone, "capacityType", c.Offering.CapacityType)
}

// failed classifies err (marking the cache) and removes the attempt's VM,
// when it may exist, and NIC, reporting cleanup failures alongside err.
func (l *Launcher) failed(ctx context.Context, log *slog.Logger, req *launch.Request, c launch.Choice, err error, vmMayExist bool) *launch.LaunchError {
	le := ClassifyError(err, req.NodeClaimName, c, l.opts.Cache)
	log.Warn("launch failed", "reason", le.Reason, "error", err)
	if cleanupErr := l.cleanup(ctx, ResourceName(req.NodeClaimName), vmMayExist); cleanupErr != nil {
		le.Err = errors.Join(le.Err, cleanupErr)
	}
	return le
}

// cleanup deletes a failed attempt's VM (when it may exist) and NIC. It
// outlives the caller's context: a cancelled launch must not leave them.
func (l *Launcher) cleanup(ctx context.Context, name string, vmMayExist bool) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if vmMayExist {
		if err := l.deleteVM(ctx, name); err != nil {
			return err
		}
	}
	return l.deleteNIC(ctx, name)
}

// reuse returns the NodeClaim's existing VM, if any. A failed VM is deleted
// so the launch starts afresh; one being deleted is an error to retry later.
func (l *Launcher) reuse(ctx context.Context, nodeClaimName string) (*launch.Instance, error) {
	name := ResourceName(nodeClaimName)
	resp, err := untilAnswered(ctx, l.opts.PollFrequency, func() (armcompute.VirtualMachinesClientGetResponse, error) {
		return l.vms.Get(ctx, l.opts.ResourceGroup, name, nil)
	})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, ClassifyError(err, nodeClaimName, launch.Choice{}, nil)
	}
	switch provisioningState(&resp.VirtualMachine) {
	case launch.StateDeleting:
		return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, fmt.Errorf("VM %s is being deleted", name))
	case launch.StateFailed:
		if err := l.deleteVM(ctx, name); err != nil {
			return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, err)
		}
		return nil, nil
	}
	if missing, err := l.missingExtension(ctx, name); err != nil {
		return nil, ClassifyError(err, nodeClaimName, launch.Choice{}, nil)
	} else if missing != "" {
		// A controller that died between the VM and its extensions left a VM that would never
		// bootstrap (CSE) or be billed: start afresh, as for a failed VM.
		l.opts.Logger.Warn("existing VM lacks an extension; deleting it to launch afresh", "nodeClaim", nodeClaimName, "extension", missing)
		if err := l.deleteVM(ctx, name); err != nil {
			return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, err)
		}
		return nil, nil
	}
	l.opts.Logger.Info("reusing existing VM", "nodeClaim", nodeClaimName)
	inst, err := l.instance(&resp.VirtualMachine)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, err)
	}
	return inst, nil
}

// provisioningState normalises a VM's provisioning state.
func provisioningState(vm *armcompute.VirtualMachine) launch.State {
	if vm.Properties == nil || vm.Properties.ProvisioningState == nil {
		return launch.StateUnknown
	}
	switch s := launch.State(*vm.Properties.ProvisioningState); s {
	case launch.StateCreating, launch.StateUpdating, launch.StateSucceeded, launch.StateFailed, launch.StateDeleting:
		return s
	default:
		return launch.StateUnknown
	}
}
