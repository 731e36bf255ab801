package azuresim

import (
	"fmt"
	"net/http"
	"strings"
)

// OpDiskEncryptionSetGet reads a disk encryption set (what upstream's AKSNodeClass validation
// does to prove the controlling identity has the Reader role on it).
const OpDiskEncryptionSetGet Op = "diskencryptionset.get"

// AddDiskEncryptionSet makes disk encryption set name in resource group rg exist. A set the
// caller may not read (readable false) answers 403 AuthorizationFailed, as ARM does without a
// role assignment; a set never added answers 404.
func (s *Sim) AddDiskEncryptionSet(rg, name string, readable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lists.des == nil {
		s.lists.des = map[string]bool{}
	}
	s.lists.des[key(rg, name)] = readable
}

func (s *Sim) getDiskEncryptionSet(c call) reply {
	readable, ok := s.lists.des[key(c.rg, c.name)]
	id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Compute/diskEncryptionSets/%s", s.opts.SubscriptionID, c.rg, c.name)
	switch {
	case !ok:
		return errorReply(http.StatusNotFound, "ResourceNotFound",
			fmt.Sprintf("The Resource 'Microsoft.Compute/diskEncryptionSets/%s' under resource group '%s' was not found.", c.name, c.rg))
	case !readable:
		return errorReply(http.StatusForbidden, "AuthorizationFailed", fmt.Sprintf(
			"The client '%s' does not have authorization to perform action 'Microsoft.Compute/diskEncryptionSets/read' over scope '%s'.",
			Token, strings.ToLower(id)))
	}
	return jsonReply(http.StatusOK, map[string]any{"id": id, "name": c.name, "location": s.opts.Location,
		"type": "Microsoft.Compute/diskEncryptionSets", "properties": map[string]any{"encryptionType": "EncryptionAtRestWithCustomerKey"}})
}
