package bootstrap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
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
// BatchPutMachine header names every machine of the batch (the one in the URL included) with its
// zones and tags, the only fields allowed to differ (AKS discards both from the body).
type Batch struct {
	Template *Machine
	Members  []BatchMember
}

// BatchMember is one machine's entry in the BatchPutMachine header.
type BatchMember struct {
	Name  string            `json:"machineName"`
	Zones []string          `json:"zones"`
	Tags  map[string]string `json:"tags"`
}

// TagNodeClaim tags an AKS machine with the NodeClaim it was created for.
const TagNodeClaim = "karpenter.azure.com_aksmachine_nodeclaim"

// Header returns the BatchPutMachine header value:
// {"batchMachines":[{"machineName":...,"zones":[...],"tags":{...}},...]}.
func (b Batch) Header() (string, error) {
	out, err := json.Marshal(struct {
		BatchMachines []BatchMember `json:"batchMachines"`
	}{b.Members})
	return string(out), err
}

// MemberOf is the header entry of machine name with body m; empty zones and tags are sent as []
// and {}, never null.
func MemberOf(name string, m *Machine) BatchMember {
	member := BatchMember{Name: name, Zones: slices.Clone(m.Zones), Tags: maps.Clone(m.Properties.Tags)}
	if member.Zones == nil {
		member.Zones = []string{}
	}
	if member.Tags == nil {
		member.Tags = map[string]string{}
	}
	return member
}

// GroupBatches groups requests whose machines are identical apart from zones and tags into batches
// of at most MaxBatchSize, in order of first appearance, keeping request order inside each batch. A
// machine name may appear only once; a duplicate or a nil machine is an ErrInvalid *api.FieldError.
func GroupBatches(requests []MachineRequest) ([]Batch, error) {
	seen := map[string]bool{}
	index := map[string]int{} // template key -> index of its open batch
	var batches []Batch
	for _, r := range requests {
		if r.Machine == nil || r.Name == "" || seen[r.Name] {
			return nil, invalid("machine", r.Name, "every request needs a machine and a unique name")
		}
		seen[r.Name] = true
		key, template, err := BatchTemplate(r.Machine)
		if err != nil {
			return nil, err
		}
		member := MemberOf(r.Name, r.Machine)
		if i, ok := index[key]; ok && len(batches[i].Members) < MaxBatchSize {
			batches[i].Members = append(batches[i].Members, member)
			continue
		}
		index[key] = len(batches)
		batches = append(batches, Batch{Template: template, Members: []BatchMember{member}})
	}
	return batches, nil
}

// BatchTemplate returns the machine without its per-machine fields (zones and tags) and a key
// naming that template (a hash of its canonical JSON): machines with equal keys may share a batch.
func BatchTemplate(m *Machine) (string, *Machine, error) {
	t := *m
	t.Zones = nil
	t.Properties.Tags = nil
	raw, err := json.Marshal(&t)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), &t, nil
}
