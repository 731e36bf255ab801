package azuresim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strings"
)

const containerServiceProvider = "Microsoft.ContainerService"

// machineWrapperCode is the code of the provisioning error the simulator
// records on a failed machine; the VM's own error is its first detail, where
// karpenter-provider-azure reads it. AKS's own wrapper code is not in the
// reference, so this one is the simulator's.
const machineWrapperCode = "MachineProvisioningFailed"

// machineRecord is an AKS Machine. model is the PUT body plus server fields,
// kept as generic JSON so everything the launcher sent comes back.
type machineRecord struct {
	rg, cluster, pool string
	sku, zone         string
	spot              bool
	model             map[string]any
	op                *operation
}

func machineKey(c call) string { return key(c.rg, c.cluster+"/"+c.pool+"/"+c.name) }

// putMachine creates a machine: validation and the size check answer at
// once; quota, capacity and injected VM failures follow the VM rules, and an
// asynchronous one leaves a Failed machine with its provisioning error.
func (s *Sim) putMachine(c call, f Fault, faulted bool) reply {
	if c.batch != nil {
		return s.putMachineBatch(c)
	}
	if old, ok := s.machines[machineKey(c)]; ok && old.state() != statusFailed {
		return jsonReply(http.StatusOK, old.model)
	}
	var model map[string]any
	_ = json.Unmarshal(c.body, &model) // parse already checked it decodes
	if rep := s.validateMachine(c, model); rep != nil {
		return *rep
	}
	failure, async := s.vmRefusal(c, f, faulted)
	if failure != nil && !async {
		return errorReply(syncStatus(failure.Code), failure.Code, failure.Message)
	}
	rec, opURL := s.startMachine(c, model, failure)
	return asyncReply(jsonReply(http.StatusCreated, rec.model), opURL)
}

// startMachine creates the machine and the operation that builds it, or
// fails it with failure, and returns it with the operation's status URL.
func (s *Sim) startMachine(c call, model map[string]any, failure *armError) (*machineRecord, string) {
	rec := s.createMachine(c, model)
	op, opURL := s.startOperation(c, containerServiceProvider, func() *armError {
		if failure == nil {
			rec.setProperty("provisioningState", statusSucceeded)
			return nil
		}
		wrapped := armError{Code: machineWrapperCode, Message: "Machine provisioning failed: " + failure.Message, Details: []armError{*failure}}
		rec.setProperty("provisioningState", statusFailed)
		rec.setProperty("status", map[string]any{"provisioningError": wrapped})
		return &wrapped
	})
	rec.op = op
	return rec, opURL
}

// validateMachine checks what AKS checks first: a size, a node image
// version, and a size the subscription may use here.
func (s *Sim) validateMachine(c call, model map[string]any) *reply {
	if c.sku == "" {
		r := badRequest("InvalidParameter", "properties.hardware.vmSize is required.")
		return &r
	}
	if v, _ := lookup(model, "properties", "kubernetes", "nodeImageVersion").(string); v == "" {
		r := badRequest("InvalidParameter", "properties.kubernetes.nodeImageVersion is required.")
		return &r
	}
	if _, ok := s.opts.SKUs[c.sku]; !ok {
		e := vmSizeNotSupported(c.sku, s.opts.SubscriptionID, s.opts.Location)
		r := errorReply(http.StatusBadRequest, e.Code, e.Message)
		return &r
	}
	return nil
}

// createMachine stores the machine with its server fields and the VM AKS
// would make for it in the cluster's default node resource group.
func (s *Sim) createMachine(c call, model map[string]any) *machineRecord {
	model["id"] = fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.ContainerService/managedClusters/%s/agentPools/%s/machines/%s",
		s.opts.SubscriptionID, c.rg, c.cluster, c.pool, c.name)
	model["name"], model["type"] = c.name, "Microsoft.ContainerService/managedClusters/agentPools/machines"
	rec := &machineRecord{rg: c.rg, cluster: c.cluster, pool: c.pool, sku: c.sku, zone: c.zone, spot: c.spot, model: model}
	rec.setProperty("provisioningState", "Creating")
	rec.setProperty("resourceId", fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/virtualMachines/%s",
		s.opts.SubscriptionID, MachineNodeResourceGroup(c.rg, c.cluster, s.opts.Location), MachineVMName(c.pool, c.name)))
	s.machines[machineKey(c)] = rec
	return rec
}

// MachineNodeResourceGroup is AKS's default node resource group,
// MC_<group>_<cluster>_<location>, where the simulator puts machine VMs.
func MachineNodeResourceGroup(rg, cluster, location string) string {
	return "MC_" + rg + "_" + cluster + "_" + location
}

// MachineVMName is the name AKS gives a machine's VM:
// aks-<pool>-<machine>-<8 characters>-vm; here the 8 characters are a hash
// of the machine name, so names are deterministic.
func MachineVMName(pool, machine string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(machine))
	return fmt.Sprintf("aks-%s-%s-%08x-vm", pool, machine, h.Sum32())
}

func (s *Sim) getMachine(c call) reply {
	m, ok := s.machines[machineKey(c)]
	if !ok {
		return notFound("Microsoft.ContainerService/managedClusters/agentPools/machines", c.rg, c.name)
	}
	if m.op != nil {
		m.op.advance(s.opts.Clock())
	}
	return jsonReply(http.StatusOK, m.model)
}

func (s *Sim) listMachines(c call) reply {
	var all []any
	for _, k := range sortedIn(s.machines, c.rg) {
		if m := s.machines[k]; strings.EqualFold(m.cluster, c.cluster) && strings.EqualFold(m.pool, c.pool) {
			if m.op != nil {
				m.op.advance(s.opts.Clock())
			}
			all = append(all, m.model)
		}
	}
	return s.page(c, all)
}

// deleteMachines marks the named machines Deleting; the operation removes
// them. Missing names are skipped; if none exists the call is 404.
func (s *Sim) deleteMachines(c call) reply {
	var keys []string
	for _, name := range strings.Split(c.name, ",") {
		one := c
		one.name = name
		if m, ok := s.machines[machineKey(one)]; ok {
			m.setProperty("provisioningState", "Deleting")
			keys = append(keys, machineKey(one))
		}
	}
	if len(keys) == 0 {
		return notFound("Microsoft.ContainerService/managedClusters/agentPools/machines", c.rg, c.name)
	}
	_, opURL := s.startOperation(c, containerServiceProvider, func() *armError {
		for _, k := range keys {
			delete(s.machines, k)
		}
		return nil
	})
	return asyncReply(emptyReply(http.StatusAccepted), opURL)
}

// MachineNames lists the machines of every pool, sorted.
func (s *Sim) MachineNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, m := range s.machines {
		names = append(names, m.model["name"].(string))
	}
	slices.Sort(names)
	return names
}

func (m *machineRecord) properties() map[string]any {
	p, _ := m.model["properties"].(map[string]any)
	if p == nil {
		p = map[string]any{}
		m.model["properties"] = p
	}
	return p
}

func (m *machineRecord) setProperty(name string, v any) { m.properties()[name] = v }

func (m *machineRecord) state() string {
	s, _ := m.properties()["provisioningState"].(string)
	return s
}

// lookup walks nested JSON objects.
func lookup(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// syncStatus is the HTTP status of a refusal: 400 for request faults, 500
// for AKS's own failures, 409 for capacity and quota, as for VMs.
func syncStatus(code string) int {
	switch code {
	case "VMSizeNotSupported", "BadRequest":
		return http.StatusBadRequest
	case internalOperationErrorCode:
		return http.StatusInternalServerError
	}
	return http.StatusConflict
}
