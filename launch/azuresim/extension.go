package azuresim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
)

// vmOfExtension is the VM name in an extension call's name.
func vmOfExtension(c call) string { return nodeOf(c.name) }

// putExtension adds an extension to a running VM. Like ARM it refuses one on
// a VM that is missing or not yet created, and never returns protectedSettings.
func (s *Sim) putExtension(c call) reply {
	var ext armcompute.VirtualMachineExtension
	if err := json.Unmarshal(c.body, &ext); err != nil {
		return badRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
	}
	vm, ok := s.vms[key(c.rg, vmOfExtension(c))]
	if !ok {
		return notFound("Microsoft.Compute/virtualMachines", c.rg, vmOfExtension(c))
	}
	if vm.state() != statusSucceeded {
		return errorReply(http.StatusConflict, "OperationNotAllowed",
			fmt.Sprintf("Operation 'PUT extension' is not allowed on VM '%s' in provisioning state '%s'.", vmOfExtension(c), vm.state()))
	}
	p := ext.Properties
	if ext.Location == nil || p == nil || p.Publisher == nil || p.Type == nil || p.TypeHandlerVersion == nil {
		return badRequest("InvalidParameter", "An extension needs location, publisher, type and typeHandlerVersion.")
	}
	ext.ID = to.Ptr(*vm.model.ID + "/extensions/" + c.sub)
	ext.Name, ext.Type = to.Ptr(c.sub), to.Ptr("Microsoft.Compute/virtualMachines/extensions")
	p.ProtectedSettings = nil
	p.ProvisioningState = to.Ptr("Creating")
	if vm.extensions == nil {
		vm.extensions = map[string]armcompute.VirtualMachineExtension{}
	}
	name := strings.ToLower(c.sub)
	vm.extensions[name] = ext
	_, opURL := s.startOperation(c, computeProvider, func() *armError {
		if stored, ok := vm.extensions[name]; ok {
			stored.Properties.ProvisioningState = to.Ptr(statusSucceeded)
		}
		return nil
	})
	return asyncReply(jsonReply(http.StatusCreated, ext), opURL)
}

func (s *Sim) getExtension(c call) reply {
	vm, ok := s.vms[key(c.rg, vmOfExtension(c))]
	if !ok {
		return notFound("Microsoft.Compute/virtualMachines", c.rg, vmOfExtension(c))
	}
	ext, ok := vm.extensions[strings.ToLower(c.sub)]
	if !ok {
		return notFound("Microsoft.Compute/virtualMachines/extensions", c.rg, c.name)
	}
	return jsonReply(http.StatusOK, ext)
}

// Extensions lists a VM's extensions by name, sorted.
func (s *Sim) Extensions(rg, vm string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.vms[key(rg, vm)]
	if !ok {
		return nil
	}
	var names []string
	for _, ext := range rec.extensions {
		names = append(names, *ext.Name)
	}
	slices.Sort(names)
	return names
}
