package azuresim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
)

// Op is a simulated ARM operation.
type Op string

// Operations the simulator serves.
const (
	OpVMPut     Op = "vm.put"
	OpVMGet     Op = "vm.get"
	OpVMDelete  Op = "vm.delete"
	OpVMList    Op = "vm.list"
	OpNICPut    Op = "nic.put"
	OpNICGet    Op = "nic.get"
	OpNICDelete Op = "nic.delete"
	OpNICList   Op = "nic.list"
	OpOperation Op = "operation.get"
	// OpExtensionPut creates a VM extension; its Record.Name is
	// "<vm>/extensions/<extension>".
	OpExtensionPut Op = "extension.put"
	OpExtensionGet Op = "extension.get"
	OpLBGet        Op = "loadbalancer.get"
	OpLBList       Op = "loadbalancer.list"
	OpNSGGet       Op = "nsg.get"
	OpNSGList      Op = "nsg.list"
	// The AKS Machine API. OpMachineDelete is the agent pool's
	// deleteMachines action; its Record.Name lists the machines, comma-separated.
	OpMachinePut    Op = "machine.put"
	OpMachineGet    Op = "machine.get"
	OpMachineList   Op = "machine.list"
	OpMachineDelete Op = "machine.delete"
)

// call is one parsed request.
type call struct {
	op        Op
	rg, name  string // name is the resource, or the operation's resource
	opID      string
	sku, zone string // VM and Machine PUT only; zone is "1".."3" or Regional
	spot      bool   // VM and Machine PUT only
	// cluster and pool address AKS Machines; sub is an extension's name.
	cluster, pool, sub string
	// batchHeader is a Machine PUT's BatchPutMachine header; batch is what
	// it lists (nil for a plain PUT).
	batchHeader string
	batch       []batchMachine
	body        []byte
	query       url.Values
	base        string // scheme://host, for URLs the simulator hands out
	path        string
}

// parse routes req. Paths are matched case-insensitively, as ARM does.
func (s *Sim) parse(req *http.Request) (call, *reply) {
	c := call{query: req.URL.Query(), base: req.URL.Scheme + "://" + req.URL.Host, path: req.URL.Path,
		batchHeader: req.Header.Get(BatchPutMachineHeader)}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			r := badRequest("InvalidRequestContent", "read body: %v", err)
			return c, &r
		}
		c.body = body
	}
	if isRetailPrices(req.URL.Path) && req.Method == http.MethodGet {
		c.op = OpRetailPrices
		return c, nil
	}
	seg := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if len(seg) < 2 || !strings.EqualFold(seg[0], "subscriptions") || seg[1] != s.opts.SubscriptionID {
		r := errorReply(http.StatusNotFound, "SubscriptionNotFound", fmt.Sprintf("The subscription in %s could not be found.", req.URL.Path))
		return c, &r
	}
	if c.query.Get("api-version") == "" {
		r := badRequest("MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
		return c, &r
	}
	lower := strings.Split(strings.ToLower(strings.Join(seg, "/")), "/")
	if op, ok := s.routeResource(&c, req.Method, seg, lower); ok {
		c.op = op
		return c, s.parseVMBody(&c)
	}
	if op, ok := routeList(&c, req.Method, seg, lower); ok {
		c.op = op
		return c, nil
	}
	if op, ok := routeChild(&c, req.Method, seg, lower); ok {
		c.op = op
		return c, s.parseChildBody(&c)
	}
	if len(lower) == 8 && lower[2] == "providers" && lower[4] == "locations" && lower[6] == "operations" && req.Method == http.MethodGet {
		c.op, c.opID = OpOperation, seg[7]
		c.name = s.operationName(c.opID)
		return c, nil
	}
	r := badRequest("InvalidResourceType", "%s %s is not simulated", req.Method, req.URL.Path)
	return c, &r
}

// routeResource matches VM and NIC paths, with or without a name.
func (s *Sim) routeResource(c *call, method string, seg, lower []string) (Op, bool) {
	if len(lower) < 7 || lower[2] != "resourcegroups" || lower[4] != "providers" {
		return "", false
	}
	c.rg = seg[3]
	kind := lower[5] + "/" + lower[6]
	var ops map[string]Op
	switch kind {
	case "microsoft.compute/virtualmachines":
		ops = map[string]Op{"LIST": OpVMList, http.MethodGet: OpVMGet, http.MethodPut: OpVMPut, http.MethodDelete: OpVMDelete,
			http.MethodPatch: OpVMPatch}
	case "microsoft.network/networkinterfaces":
		ops = map[string]Op{"LIST": OpNICList, http.MethodGet: OpNICGet, http.MethodPut: OpNICPut, http.MethodDelete: OpNICDelete,
			http.MethodPatch: OpNICPatch}
	case "microsoft.network/loadbalancers":
		ops = map[string]Op{"LIST": OpLBList, http.MethodGet: OpLBGet}
	case "microsoft.network/networksecuritygroups":
		ops = map[string]Op{"LIST": OpNSGList, http.MethodGet: OpNSGGet}
	case "microsoft.compute/diskencryptionsets":
		ops = map[string]Op{http.MethodGet: OpDiskEncryptionSetGet}
	default:
		return "", false
	}
	switch {
	case len(seg) == 7 && method == http.MethodGet:
		op, ok := ops["LIST"]
		return op, ok
	case len(seg) == 8:
		c.name = seg[7]
		op, ok := ops[method]
		return op, ok
	}
	return "", false
}

// parseVMBody reads the size and zone of a VM PUT, which faults match on.
func (s *Sim) parseVMBody(c *call) *reply {
	if c.op != OpVMPut {
		return nil
	}
	var vm armcompute.VirtualMachine
	if err := json.Unmarshal(c.body, &vm); err != nil {
		r := badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
		return &r
	}
	if vm.Properties != nil && vm.Properties.HardwareProfile != nil && vm.Properties.HardwareProfile.VMSize != nil {
		c.sku = string(*vm.Properties.HardwareProfile.VMSize)
	}
	c.spot = vm.Properties != nil && vm.Properties.Priority != nil &&
		*vm.Properties.Priority == armcompute.VirtualMachinePriorityTypesSpot
	c.zone = Regional
	if len(vm.Zones) == 1 && vm.Zones[0] != nil {
		c.zone = *vm.Zones[0]
	}
	return nil
}

// operationName is the resource an operation works on ("" if unknown).
func (s *Sim) operationName(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if op, ok := s.operations[id]; ok {
		return op.name
	}
	return ""
}
