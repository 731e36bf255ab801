package instancetype

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/napkit/napkit/api"
)

// instanceTypeJSON is how an instance type is written as JSON: requirements in their API form (sorted
// by key), and the computed allocatable alongside capacity and overhead.
type instanceTypeJSON struct {
	Name            string                                     `json:"name"`
	Requirements    []api.NodeSelectorRequirementWithMinValues `json:"requirements"`
	Capacity        corev1.ResourceList                        `json:"capacity"`
	Overhead        Overhead                                   `json:"overhead"`
	Allocatable     corev1.ResourceList                        `json:"allocatable"`
	EphemeralOSDisk EphemeralDisk                              `json:"ephemeralOSDisk"`
	Offerings       Offerings                                  `json:"offerings"`
	SKU             *SKU                                       `json:"sku"`
}

// MarshalJSON writes the instance type for people and tools (the CLI, golden files). Offerings are
// written without their requirements, which follow from zone, capacity type and UltraSSD.
func (it *InstanceType) MarshalJSON() ([]byte, error) {
	return json.Marshal(instanceTypeJSON{
		Name:            it.Name,
		Requirements:    it.Requirements.ToAPI(),
		Capacity:        it.Capacity,
		Overhead:        it.Overhead,
		Allocatable:     it.Allocatable(),
		EphemeralOSDisk: it.EphemeralOSDisk,
		Offerings:       it.Offerings,
		SKU:             it.SKU,
	})
}

// MarshalJSON writes the SKU with its Hyper-V generations as a sorted list (["1", "2"]) rather than
// the set's map form.
func (s SKU) MarshalJSON() ([]byte, error) {
	type plain SKU // drops this method, so Marshal does not recurse
	return json.Marshal(struct {
		plain
		HyperVGenerations []string `json:"hyperVGenerations"`
	}{plain(s), sets.List(s.HyperVGenerations)})
}
