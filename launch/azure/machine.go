package azure

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// createMachine launches req as an AKS Machine: AKS makes the VM, its NIC
// and its bootstrap, so one PUT is the node's only write.
func (l *Launcher) createMachine(ctx context.Context, req *launch.Request) (*launch.Instance, error) {
	name := bootstrap.MachineName(req.NodeClaimName)
	if inst, err := l.reuseMachine(ctx, req.NodeClaimName, name); inst != nil || err != nil {
		return inst, err
	}
	return l.launch(ctx, req, func(c launch.Choice) (*launch.Instance, *launch.LaunchError) {
		return l.attemptMachine(ctx, req, name, c)
	})
}

// reuseMachine returns the NodeClaim's existing machine, if any. A failed
// one is deleted so the launch starts afresh; one being deleted is an error
// to retry later.
func (l *Launcher) reuseMachine(ctx context.Context, nodeClaimName, name string) (*launch.Instance, error) {
	m, err := untilAnswered(ctx, l.opts.PollFrequency, func() (*machineResource, error) { return l.getMachine(ctx, name) })
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, ClassifyError(err, nodeClaimName, launch.Choice{}, nil)
	}
	switch m.state() {
	case launch.StateDeleting:
		return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, fmt.Errorf("machine %s is being deleted", name))
	case launch.StateFailed:
		if err := l.deleteMachine(ctx, name); err != nil {
			return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, err)
		}
		return nil, nil
	}
	l.opts.Logger.Info("reusing existing AKS machine", "nodeClaim", nodeClaimName, "machine", name)
	inst, err := l.machineInstance(m)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, nodeClaimName, launch.Choice{}, err)
	}
	return inst, nil
}

// attemptMachine PUTs the machine for one offering (in a header batch in
// mode aksmachineapiheaderbatch) and waits for AKS to build it; on failure
// it classifies the error and deletes the machine.
func (l *Launcher) attemptMachine(ctx context.Context, req *launch.Request, name string, c launch.Choice) (*launch.Instance, *launch.LaunchError) {
	b, err := req.ResolveBootstrap(ctx, c, l.opts.Mode)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonInvalidRequest, req.NodeClaimName, c, err)
	}
	log := l.attemptLogger(req, c).With("machine", name)
	log.Info("launching AKS machine")
	body := machineBody(b.Machine, c, l.machineTags(req, b.Machine))
	if l.batcher != nil {
		return l.attemptBatchedMachine(ctx, log, req, name, c, body)
	}
	if err := l.putMachine(ctx, name, body); err != nil {
		return nil, l.machineFailed(ctx, log, req, name, c, err, nil, !armRejected(err))
	}
	// The machine, not its operation, is followed: as in the batch mode, a burst's machines are
	// then read by shared lists of the pool (machineWatch) rather than one poll each.
	m, err := l.waitMachine(ctx, name)
	if err != nil {
		return nil, l.machineFailed(ctx, log, req, name, c, err, m.provisioningError(), true)
	}
	inst, err := l.machineInstance(m)
	if err != nil {
		return nil, launch.NewLaunchError(launch.ReasonCloudError, req.NodeClaimName, c, err)
	}
	log.Info("launched", "providerID", inst.ProviderID)
	return inst, nil
}

// machineFailed classifies a machine failure (marking the cache) and deletes
// the machine when it may exist, reporting a cleanup failure alongside.
func (l *Launcher) machineFailed(ctx context.Context, log *slog.Logger, req *launch.Request, name string, c launch.Choice,
	err error, provisioning *armErrorBody, mayExist bool) *launch.LaunchError {
	le := classifyMachineError(err, provisioning, req.NodeClaimName, c, l.opts.Cache)
	log.Warn("launch failed", "reason", le.Reason, "error", err)
	if !mayExist {
		return le
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if cleanupErr := l.deleteMachine(ctx, name); cleanupErr != nil {
		le.Err = errors.Join(le.Err, cleanupErr)
	}
	return le
}

// deleteMachine deletes one machine; a machine that is gone is success.
func (l *Launcher) deleteMachine(ctx context.Context, name string) error {
	if err := l.deleteMachines(ctx, []string{name}); err != nil && !isNotFound(err) {
		return cloudError("delete AKS machine", name, err)
	}
	return nil
}
