package azure

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/napkit/napkit/launch"
)

// machineOf returns the machine behind a VM name, in the Machine API modes.
// VM-mode VMs (aks-<nodeclaim>) do not match, so a launcher switched to a
// Machine API mode still gets and deletes the VMs it made before.
func (l *Launcher) machineOf(vmName string) (string, bool) {
	if !l.opts.Mode.IsMachineAPI() {
		return "", false
	}
	return machineNameOfVM(vmName, l.opts.MachinesPool)
}

// getMachineInstance is Get for a machine's VM.
func (l *Launcher) getMachineInstance(ctx context.Context, providerID, name string) (*launch.Instance, error) {
	m, err := l.getMachine(ctx, name)
	if isNotFound(err) {
		return nil, fmt.Errorf("%w: %s", launch.ErrNotFound, providerID)
	}
	if err != nil {
		return nil, cloudError("get AKS machine", name, err)
	}
	return l.machineInstance(m)
}

// deleteMachineInstance is Delete for a machine's VM: a machine that is gone
// is success, one already deleting is left to finish.
func (l *Launcher) deleteMachineInstance(ctx context.Context, name string) error {
	m, err := l.getMachine(ctx, name)
	switch {
	case isNotFound(err):
		return nil
	case err != nil:
		return cloudError("get AKS machine", name, err)
	case m.state() == launch.StateDeleting:
		return nil
	}
	return l.deleteMachine(ctx, name)
}

// listMachines returns the cluster's machines in the pool, by name.
func (l *Launcher) listMachines(ctx context.Context) ([]*machineResource, error) {
	all, _, err := l.listMachinePages(ctx)
	if err != nil {
		return nil, cloudError("list AKS machines in pool", l.opts.MachinesPool, err)
	}
	owned := slices.DeleteFunc(all, func(m *machineResource) bool {
		return m == nil || m.Properties.Tags[TagCluster] != l.opts.ClusterName
	})
	slices.SortFunc(owned, func(a, b *machineResource) int { return strings.Compare(a.Name, b.Name) })
	return owned, nil
}

// machineInstances converts machines to Instances.
func (l *Launcher) machineInstances(machines []*machineResource) ([]*launch.Instance, error) {
	out := make([]*launch.Instance, 0, len(machines))
	for _, m := range machines {
		inst, err := l.machineInstance(m)
		if err != nil {
			return nil, err
		}
		out = append(out, inst)
	}
	return out, nil
}

// collectMachines deletes, in one deleteMachines call, the machines no
// NodeClaim owns that are older than gracePeriod and not already deleting.
func (l *Launcher) collectMachines(ctx context.Context, owned func(string) bool, gracePeriod time.Duration, now time.Time) ([]string, error) {
	if !l.opts.Mode.IsMachineAPI() {
		return nil, nil
	}
	machines, err := l.listMachines(ctx)
	if err != nil {
		return nil, err
	}
	var orphans []string
	for _, m := range machines {
		tags := m.Properties.Tags
		old := now.Sub(parseCreatedAt(tags[TagCreatedAt])) >= gracePeriod
		if m.state() != launch.StateDeleting && old && !owned(tags[TagMachineNodeClaim]) {
			orphans = append(orphans, m.Name)
		}
	}
	if len(orphans) == 0 {
		return nil, nil
	}
	if err := l.deleteMachines(ctx, orphans); err != nil && !isNotFound(err) {
		return nil, cloudError("delete AKS machines", strings.Join(orphans, ","), err)
	}
	return orphans, nil
}
