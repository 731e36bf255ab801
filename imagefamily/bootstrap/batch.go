package bootstrap

import (
	"encoding/json"
	"slices"
)

// MaxBatchSize is the most machines one aksmachineapiheaderbatch request may create.
const MaxBatchSize = 50

// BatchHeaderName is the request header that lists the extra machines of a batched create.
const BatchHeaderName = "BatchPutMachine"

// MachineRequest is one machine to create.
type MachineRequest struct {
	// Name is the machine name (see MachineName).
	Name    string
	Machine *Machine
}

// Batch is one create request for machines that share a template: the body is Template, and the
// header names every machine with its zones and NodeClaim tag, the only things allowed to differ.
type Batch struct {
	Template *Machine
	Members  []BatchMember
}

// BatchMember is one machine of a batch.
type BatchMember struct {
	Name  string   `json:"machineName"`
	Zones []string `json:"zones,omitempty"`
	// NodeClaim is the machine's TagNodeClaim tag, the one tag that differs between machines.
	NodeClaim string `json:"nodeClaim,omitempty"`
}

// TagNodeClaim tags an AKS machine with the NodeClaim it was created for.
const TagNodeClaim = "karpenter.azure.com_aksmachine_nodeclaim"

// Header returns the BatchPutMachine header value: {"machines":[{"machineName":...,"zones":[...]}]}.
func (b Batch) Header() (string, error) {
	out, err := json.Marshal(struct {
		Machines []BatchMember `json:"machines"`
	}{b.Members})
	return string(out), err
}

// GroupBatches groups requests whose machines are identical apart from zones and TagNodeClaim into batches of
// at most MaxBatchSize, in order of first appearance, keeping request order inside each batch. A
// machine name may appear only once; a duplicate or a nil machine is an ErrInvalid *FieldError.
func GroupBatches(requests []MachineRequest) ([]Batch, error) {
	seen := map[string]bool{}
	index := map[string]int{} // template key -> index of its open batch
	var batches []Batch
	for _, r := range requests {
		if r.Machine == nil || r.Name == "" || seen[r.Name] {
			return nil, invalid("machine", r.Name, "every request needs a machine and a unique name")
		}
		seen[r.Name] = true
		key, template, err := templateKey(r.Machine)
		if err != nil {
			return nil, err
		}
		member := BatchMember{Name: r.Name, Zones: slices.Clone(r.Machine.Zones), NodeClaim: r.Machine.Properties.Tags[TagNodeClaim]}
		if i, ok := index[key]; ok && len(batches[i].Members) < MaxBatchSize {
			batches[i].Members = append(batches[i].Members, member)
			continue
		}
		index[key] = len(batches)
		batches = append(batches, Batch{Template: template, Members: []BatchMember{member}})
	}
	return batches, nil
}

// templateKey returns the machine without zones and NodeClaim tag, and its canonical JSON, which
// identifies the template.
func templateKey(m *Machine) (string, *Machine, error) {
	t := *m
	t.Zones = nil
	t.Properties.Tags = copyMap(m.Properties.Tags)
	delete(t.Properties.Tags, TagNodeClaim)
	b, err := json.Marshal(&t)
	if err != nil {
		return "", nil, err
	}
	return string(b), &t, nil
}
