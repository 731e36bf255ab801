package azuresim

import (
	"encoding/json"
	"net/http"
	"strings"
)

// routeChild matches the nested resources: VM extensions and the AKS
// Machine API (machines and the agent pool's deleteMachines action).
func routeChild(c *call, method string, seg, lower []string) (Op, bool) {
	if len(lower) < 10 || lower[2] != "resourcegroups" || lower[4] != "providers" {
		return "", false
	}
	c.rg = seg[3]
	switch {
	case len(seg) == 10 && lower[5] == "microsoft.compute" && lower[6] == "virtualmachines" && lower[8] == "extensions":
		c.name, c.sub = seg[7]+"/extensions/"+seg[9], seg[9]
		return pick(method, map[string]Op{http.MethodPut: OpExtensionPut, http.MethodGet: OpExtensionGet})
	case len(seg) == 10 && lower[5] == "microsoft.network" && lower[6] == "virtualnetworks" && lower[8] == "subnets":
		c.name = seg[7] + "/" + seg[9]
		return pick(method, map[string]Op{http.MethodGet: OpSubnetGet})
	case lower[5] != "microsoft.containerservice" || lower[6] != "managedclusters" || lower[8] != "agentpools":
		return "", false
	}
	c.cluster, c.pool = seg[7], seg[9]
	switch {
	case len(seg) == 11 && lower[10] == "machines" && method == http.MethodGet:
		return OpMachineList, true
	case len(seg) == 11 && lower[10] == "deletemachines" && method == http.MethodPost:
		return OpMachineDelete, true
	case len(seg) == 12 && lower[10] == "machines":
		c.name = seg[11]
		return pick(method, map[string]Op{http.MethodPut: OpMachinePut, http.MethodGet: OpMachineGet})
	}
	return "", false
}

func pick(method string, ops map[string]Op) (Op, bool) {
	op, ok := ops[method]
	return op, ok
}

// machineBody is what the simulator reads of a Machine PUT.
type machineBody struct {
	Zones      []string `json:"zones"`
	Properties *struct {
		Hardware struct {
			VMSize string `json:"vmSize"`
		} `json:"hardware"`
		Kubernetes struct {
			NodeImageVersion string `json:"nodeImageVersion"`
		} `json:"kubernetes"`
		Priority string `json:"priority"`
	} `json:"properties"`
}

// parseChildBody reads a Machine PUT's size, zone and priority (which faults
// match on) and its batch header, and the names a deleteMachines call names.
func (s *Sim) parseChildBody(c *call) *reply {
	switch c.op {
	case OpMachinePut:
		var m machineBody
		if err := json.Unmarshal(c.body, &m); err != nil || m.Properties == nil {
			r := badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized.")
			return &r
		}
		c.sku, c.spot, c.zone = m.Properties.Hardware.VMSize, strings.EqualFold(m.Properties.Priority, "Spot"), Regional
		if len(m.Zones) == 1 {
			c.zone = m.Zones[0]
		}
		if c.batchHeader != "" {
			return parseBatch(c)
		}
	case OpMachineDelete:
		var d struct {
			MachineNames []string `json:"machineNames"`
		}
		if err := json.Unmarshal(c.body, &d); err != nil || len(d.MachineNames) == 0 {
			r := badRequest("InvalidParameter", "machineNames must list at least one machine.")
			return &r
		}
		c.name = strings.Join(d.MachineNames, ",")
	}
	return nil
}
