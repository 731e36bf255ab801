package azuresim

import (
	"encoding/json"
	"net/http"
)

// The tag updates ARM serves without replacing the resource.
const (
	// OpVMPatch is a VM PATCH (VirtualMachinesClient.BeginUpdate); only its tags are applied.
	OpVMPatch Op = "vm.patch"
	// OpNICPatch is a NIC tags PATCH (InterfacesClient.UpdateTags).
	OpNICPatch Op = "nic.patch"
)

// patchBody is what both PATCHes carry that the simulator applies.
type patchBody struct {
	Tags map[string]*string `json:"tags"`
}

// patchVM replaces the VM's tags, as a VirtualMachineUpdate with tags does, and answers the VM
// synchronously (200, which the SDK's poller takes as done).
func (s *Sim) patchVM(c call) reply {
	vm, ok := s.vms[key(c.rg, c.name)]
	if !ok {
		return notFound("Microsoft.Compute/virtualMachines", c.rg, c.name)
	}
	var body patchBody
	if err := json.Unmarshal(c.body, &body); err != nil {
		return badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
	}
	if body.Tags != nil {
		vm.model.Tags = body.Tags
	}
	return jsonReply(http.StatusOK, vm.model)
}

// patchNIC replaces the NIC's tags (TagsObject).
func (s *Sim) patchNIC(c call) reply {
	nic, ok := s.nics[key(c.rg, c.name)]
	if !ok {
		return notFound("Microsoft.Network/networkInterfaces", c.rg, c.name)
	}
	var body patchBody
	if err := json.Unmarshal(c.body, &body); err != nil {
		return badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
	}
	nic.model.Tags = body.Tags
	return jsonReply(http.StatusOK, nic.model)
}
