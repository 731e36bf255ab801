package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// instanceTypesView is the JSON contract of `napkit instance-types -o json` (documented in README.md).
type instanceTypesView struct {
	Region        string             `json:"region"`
	InstanceTypes []instanceTypeView `json:"instanceTypes"`
	Excluded      []excludedView     `json:"excluded"`
	Notes         []string           `json:"notes,omitempty"`
}

type instanceTypeView struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Capacity    map[string]string `json:"capacity"`
	Overhead    overheadView      `json:"overhead"`
	Allocatable map[string]string `json:"allocatable"`
	OSDisk      osDiskView        `json:"osDisk"`
	Offerings   []offeringView    `json:"offerings"`
}

// osDiskView is the OS disk a node of the type gets, and what it costs.
type osDiskView struct {
	SizeGB             int64   `json:"sizeGB"`
	Ephemeral          bool    `json:"ephemeral"`
	Placement          string  `json:"placement,omitempty"`
	StorageAccountType string  `json:"storageAccountType,omitempty"`
	Tier               string  `json:"tier,omitempty"`
	PricePerHour       float64 `json:"pricePerHour"`
	PriceKnown         bool    `json:"priceKnown"`
	PriceUnverified    bool    `json:"priceUnverified,omitempty"`
	CapabilitiesKnown  bool    `json:"capabilitiesKnown"`
}

type overheadView struct {
	KubeReserved      map[string]string `json:"kubeReserved"`
	SystemReserved    map[string]string `json:"systemReserved"`
	EvictionThreshold map[string]string `json:"evictionThreshold"`
}

type offeringView struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	PricePerHour float64 `json:"pricePerHour"`
	// VMPricePerHour and DiskPricePerHour are PricePerHour's two parts: the VM and its managed OS disk.
	VMPricePerHour   float64 `json:"vmPricePerHour"`
	DiskPricePerHour float64 `json:"diskPricePerHour"`
	Available        bool    `json:"available"`
	// SpotPriceKnown is set on spot offerings: false means no spot price is known and the
	// offering is priced at on-demand, so it is never chosen as cheaper.
	SpotPriceKnown *bool `json:"spotPriceKnown,omitempty"`
}

type excludedView struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// newInstanceTypesView builds the view; spotKnown says whether a size has a spot price (nil: all do).
func newInstanceTypesView(c *instancetype.Catalogue, spotKnown func(sku string) bool) instanceTypesView {
	view := instanceTypesView{
		Region:        c.Region,
		InstanceTypes: make([]instanceTypeView, 0, len(c.InstanceTypes)),
		Excluded:      make([]excludedView, 0, len(c.Excluded)),
		Notes:         c.Notes,
	}
	for _, it := range c.InstanceTypes {
		view.InstanceTypes = append(view.InstanceTypes, newInstanceTypeView(it, spotKnown))
	}
	for _, ex := range c.Excluded {
		view.Excluded = append(view.Excluded, excludedView{Name: ex.Name, Reason: ex.Reason})
	}
	return view
}

func newInstanceTypeView(it *instancetype.InstanceType, spotKnown func(sku string) bool) instanceTypeView {
	offerings := make([]offeringView, 0, len(it.Offerings))
	for _, o := range it.Offerings {
		ov := offeringView{Zone: o.Zone, CapacityType: o.CapacityType, PricePerHour: o.Price,
			VMPricePerHour: o.VMPrice, DiskPricePerHour: o.DiskPrice, Available: o.Available}
		if o.CapacityType == api.CapacityTypeSpot {
			known := spotKnown == nil || spotKnown(it.Name)
			ov.SpotPriceKnown = &known
		}
		offerings = append(offerings, ov)
	}
	disk := it.EphemeralOSDisk
	return instanceTypeView{
		Name:     it.Name,
		Labels:   it.Requirements.Labels(),
		Capacity: quantities(it.Capacity),
		Overhead: overheadView{
			KubeReserved:      quantities(it.Overhead.KubeReserved),
			SystemReserved:    quantities(it.Overhead.SystemReserved),
			EvictionThreshold: quantities(it.Overhead.EvictionThreshold),
		},
		Allocatable: quantities(it.Allocatable()),
		OSDisk: osDiskView{SizeGB: disk.SizeGB, Ephemeral: disk.Ephemeral(), Placement: disk.Placement,
			StorageAccountType: disk.StorageAccountType, Tier: disk.Tier, PricePerHour: disk.PricePerHour,
			PriceKnown: disk.PriceKnown, PriceUnverified: disk.PriceUnverified, CapabilitiesKnown: disk.CapabilitiesKnown},
		Offerings: offerings,
	}
}

// quantities renders a resource list as Kubernetes quantity strings. Memory stays exact: a Quantity
// prints whole bytes or an exact binary suffix, never a rounded decimal.
func quantities(list corev1.ResourceList) map[string]string {
	out := make(map[string]string, len(list))
	for name, q := range list {
		out[string(name)] = q.String()
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeInstanceTypesTable(w io.Writer, view instanceTypesView) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tARCH\tCPU\tMEMORY\tALLOC CPU\tALLOC MEMORY\tPODS\tZONES\tOS DISK\tON-DEMAND $/H\tSPOT $/H")
	for _, it := range view.InstanceTypes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			it.Name, it.Labels[api.LabelArch], it.Capacity["cpu"], mebibytes(it.Capacity["memory"]),
			it.Allocatable["cpu"], mebibytes(it.Allocatable["memory"]), it.Capacity["pods"],
			zones(it.Offerings), osDiskColumn(it.OSDisk), cheapest(it.Offerings, api.CapacityTypeOnDemand),
			spotColumn(it.Offerings))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d instance types in %s, %d excluded (-o json lists the reasons); prices are VM + managed OS disk\n",
		len(view.InstanceTypes), view.Region, len(view.Excluded))
	if unknownSpot(view) > 0 && err == nil {
		_, err = fmt.Fprintf(w, "note: %d sizes have no known spot price (SPOT marked \"= on-demand\"): their spot offerings are priced at on-demand, never cheaper\n",
			unknownSpot(view))
	}
	for _, note := range view.Notes {
		if err == nil {
			_, err = fmt.Fprintf(w, "note: %s\n", note)
		}
	}
	return err
}

// osDiskColumn is "ephemeral", or the managed disk's tier and hourly price ("unverified" when the
// figure was not checked against a source); "?" marks a size whose disk capabilities are unknown.
func osDiskColumn(d osDiskView) string {
	s := "ephemeral"
	if !d.Ephemeral {
		s = fmt.Sprintf("%s %.4f", d.Tier, d.PricePerHour)
		if !d.PriceKnown {
			s = d.StorageAccountType + " unpriced"
		} else if d.PriceUnverified {
			s += " unverified"
		}
	}
	if !d.CapabilitiesKnown {
		s += " ?"
	}
	return s
}

// mebibytes shows a memory quantity in Mi with one decimal, for reading; JSON keeps exact bytes.
func mebibytes(s string) string {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return s
	}
	return fmt.Sprintf("%.1fMi", float64(q.Value())/(1<<20))
}

func zones(offerings []offeringView) string {
	seen := map[string]bool{}
	var out []string
	for _, o := range offerings {
		if !seen[o.Zone] {
			seen[o.Zone] = true
			out = append(out, o.Zone)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func cheapest(offerings []offeringView, capacityType string) string {
	best := -1.0
	for _, o := range offerings {
		if o.CapacityType == capacityType && o.Available && (best < 0 || o.PricePerHour < best) {
			best = o.PricePerHour
		}
	}
	if best < 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", best)
}

// spotColumn is the cheapest available spot price, marked "= on-demand" when the size has no known
// spot price and is priced at on-demand.
func spotColumn(offerings []offeringView) string {
	s := cheapest(offerings, api.CapacityTypeSpot)
	for _, o := range offerings {
		if o.SpotPriceKnown != nil && !*o.SpotPriceKnown && s != "-" {
			return s + " = on-demand"
		}
	}
	return s
}

// unknownSpot counts the sizes offered as spot without a known spot price.
func unknownSpot(view instanceTypesView) int {
	n := 0
	for _, it := range view.InstanceTypes {
		for _, o := range it.Offerings {
			if o.SpotPriceKnown != nil && !*o.SpotPriceKnown {
				n++
				break
			}
		}
	}
	return n
}
