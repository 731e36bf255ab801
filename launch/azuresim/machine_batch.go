package azuresim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The AKS Machine API's header batch, as karpenter-provider-azure documents
// it (designs/0010-aks-machines-batch-creation.md): a Machine PUT with a
// BatchPutMachine header creates every machine the header lists, at most
// MaxBatchMachines, from the shared body; each machine's zones and tags come
// from the header, and the body's are discarded. A machine that already
// exists fails (a batch does not update). Failures answer:
//
//	≥1 machine failed a client check   400 BatchMachineClientError, one
//	                                   {code, message, target} detail per
//	                                   failed machine, at the top level
//	only internal failures             500 BatchMachineInternalServerError,
//	                                   the details JSON-encoded in message
//	shared-property refusal            the plain Machine error, whole batch
//	every machine accepted             200 and the machine the URL names
//
// Machines no detail names are created. The simulator's own choices: the
// header must list the machine the URL names, the code of an existing
// machine's failure is MachineAlreadyExists, and the batch's size, priority
// and validation come from the body, so VMSizeNotSupported refuses the whole
// batch.

// BatchPutMachineHeader is the request header that turns a Machine PUT into
// a batch create.
const BatchPutMachineHeader = "BatchPutMachine"

// MaxBatchMachines is the most machines one batch may name.
const MaxBatchMachines = 50

// Error codes of the header batch.
const (
	BatchMachineClientError         = "BatchMachineClientError"
	BatchMachineInternalServerError = "BatchMachineInternalServerError"
	// MachineAlreadyExistsCode is the simulator's code for a batch member
	// that already exists.
	MachineAlreadyExistsCode   = "MachineAlreadyExists"
	internalOperationErrorCode = "InternalOperationError"
)

// batchMachine is one machine of a BatchPutMachine header.
type batchMachine struct {
	MachineName string            `json:"machineName"`
	Zones       []string          `json:"zones"`
	Tags        map[string]string `json:"tags"`
}

// batchError is the unwrapped error body AKS answers a batch with.
type batchError struct {
	Code    string     `json:"code"`
	Message string     `json:"message"`
	Details []armError `json:"details,omitempty"`
	Subcode string     `json:"subcode"`
}

// parseBatch reads and checks the BatchPutMachine header of c.
func parseBatch(c *call) *reply {
	bad := func(format string, args ...any) *reply {
		r := badRequest("InvalidParameter", format, args...)
		return &r
	}
	var h struct {
		BatchMachines []batchMachine `json:"batchMachines"`
	}
	if err := json.Unmarshal([]byte(c.batchHeader), &h); err != nil {
		return bad("The %s header could not be deserialized: %v", BatchPutMachineHeader, err)
	}
	switch n := len(h.BatchMachines); {
	case n == 0:
		return bad("The %s header must list at least one machine.", BatchPutMachineHeader)
	case n > MaxBatchMachines:
		return bad("The %s header lists %d machines; at most %d are allowed.", BatchPutMachineHeader, n, MaxBatchMachines)
	}
	seen := map[string]bool{}
	for _, m := range h.BatchMachines {
		name := strings.ToLower(m.MachineName)
		switch {
		case name == "":
			return bad("Every machine of the %s header needs a machineName.", BatchPutMachineHeader)
		case seen[name]:
			return bad("Machine %s is listed twice in the %s header.", m.MachineName, BatchPutMachineHeader)
		case len(m.Zones) > 1:
			return bad("Machine %s may be placed in at most one zone.", m.MachineName)
		}
		seen[name] = true
	}
	if !seen[strings.ToLower(c.name)] {
		return bad("The %s header must list machine %s, which the request URL names.", BatchPutMachineHeader, c.name)
	}
	c.batch = h.BatchMachines
	return nil
}

// batchNames lists the machines of a batched PUT (nil for other calls).
func (c call) batchNames() []string {
	if c.batch == nil {
		return nil
	}
	names := make([]string, len(c.batch))
	for i, m := range c.batch {
		names[i] = m.MachineName
	}
	return names
}

// putMachineBatch creates the machines a batch names from the shared body.
// Each machine meets the VM rules (injected faults matched on its name and
// zone, quota, capacity) like a single PUT; a synchronous refusal becomes its
// detail in the batch's error answer.
func (s *Sim) putMachineBatch(c call) reply {
	var shared map[string]any
	_ = json.Unmarshal(c.body, &shared) // parse already checked it decodes
	if rep := s.validateMachine(c, shared); rep != nil {
		return *rep
	}
	if _, ok := s.takeFaultLocked(c, func(f *Fault) bool { return f.Kind == FaultVMSizeNotSupported }); ok {
		e := vmSizeNotSupported(c.sku, s.opts.SubscriptionID, s.opts.Location)
		return errorReply(http.StatusBadRequest, e.Code, e.Message)
	}
	var clientErrs, internalErrs []armError
	var first *machineRecord
	for _, bm := range c.batch {
		one := c
		one.name, one.zone, one.batch = bm.MachineName, Regional, nil
		if len(bm.Zones) == 1 {
			one.zone = bm.Zones[0]
		}
		if old, ok := s.machines[machineKey(one)]; ok && old.state() != statusFailed {
			clientErrs = append(clientErrs, armError{Code: MachineAlreadyExistsCode, Target: bm.MachineName,
				Message: fmt.Sprintf("Machine %s already exists; a batch PUT does not update machines.", bm.MachineName)})
			continue
		}
		f, faulted := s.takeFaultLocked(one, func(f *Fault) bool { return !f.Kind.transport() })
		failure, async := s.vmRefusal(one, f, faulted)
		if failure != nil && !async {
			e := *failure
			e.Target = bm.MachineName
			if e.Code == internalOperationErrorCode {
				internalErrs = append(internalErrs, e)
			} else {
				clientErrs = append(clientErrs, e)
			}
			continue
		}
		rec, _ := s.startMachine(one, memberModel(c.body, bm), failure)
		if strings.EqualFold(bm.MachineName, c.name) {
			first = rec
		}
	}
	switch {
	case len(clientErrs) > 0:
		return jsonReply(http.StatusBadRequest, batchError{Code: BatchMachineClientError,
			Message: batchFailureMessage(clientErrs, internalErrs), Details: append(clientErrs, internalErrs...)})
	case len(internalErrs) > 0:
		inner, _ := json.Marshal(map[string][]armError{"details": internalErrs})
		return jsonReply(http.StatusInternalServerError, batchError{Code: BatchMachineInternalServerError, Message: string(inner)})
	}
	return jsonReply(http.StatusOK, first.model)
}

// memberModel is the shared body with one machine's zones and tags.
func memberModel(body []byte, bm batchMachine) map[string]any {
	var model map[string]any
	_ = json.Unmarshal(body, &model)
	delete(model, "zones")
	if len(bm.Zones) > 0 {
		model["zones"] = bm.Zones
	}
	props, _ := model["properties"].(map[string]any)
	delete(props, "tags")
	if len(bm.Tags) > 0 {
		tags := make(map[string]any, len(bm.Tags))
		for k, v := range bm.Tags {
			tags[k] = v
		}
		props["tags"] = tags
	}
	return model
}

// batchFailureMessage names the failed machines, as AKS's message does.
func batchFailureMessage(client, internal []armError) string {
	targets := func(errs []armError) string {
		names := make([]string, len(errs))
		for i, e := range errs {
			names[i] = e.Target
		}
		return strings.Join(names, ", ")
	}
	msg := "the following machines failed with ClientError: " + targets(client)
	if len(internal) > 0 {
		msg += "; the following machines failed with InternalError: " + targets(internal)
	}
	return msg
}

// internalOperationError is a failure inside AKS.
func internalOperationError(machine string) armError {
	return armError{Code: internalOperationErrorCode,
		Message: fmt.Sprintf("An internal error occurred while creating machine %s. Please retry later.", machine)}
}
