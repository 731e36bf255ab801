package instancetype

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/internal/azuredata"
	"github.com/napkit/napkit/kubeletconfig"
	"github.com/napkit/napkit/pricing"
)

// Options configure Build. Only Region is required.
type Options struct {
	// Region is the ARM region the SKUs were listed for, e.g. "eastus".
	Region string
	// NodeClass is the AKSNodeClass the nodes are built from; nil means every default (Ubuntu, 128 GB
	// OS disk, GPU driver installed, no encryption at host or trusted launch).
	NodeClass *api.AKSNodeClass
	// Network is the cluster's network setup; it decides the default pod limit (see
	// kubeletconfig.MaxPods). Pass api.DefaultClusterNetwork() for Azure CNI overlay.
	Network api.ClusterNetwork
	// Prices are the region's prices; the zero value prices everything at pricing.MissingPrice.
	Prices pricing.RegionPrices
	// KnownSKUs lists the VM sizes napkit knows (DefaultKnownSKUs). Others are kept but priced at
	// pricing.MissingPrice, so they are chosen only when nothing known fits. Nil means all are known.
	KnownSKUs map[string]bool
	// VMMemoryOverheadPercent is the fraction of nominal memory the hypervisor keeps, in [0, 1);
	// 0 means DefaultVMMemoryOverheadPercent.
	VMMemoryOverheadPercent float64
	// ReservationPolicy selects the kube-reserved memory policy; "" means kubeletconfig.PolicyMaxPods.
	ReservationPolicy kubeletconfig.Policy
	// Unavailable reports offerings known to be out of capacity (the launch package's cache of
	// insufficient-capacity errors). zone is the zone label ("eastus-1", or "0" for regional) and
	// capacityType is "spot" or "on-demand". Nil means everything is available.
	Unavailable func(sku, zone, capacityType string) bool
}

// settings are Options checked and with defaults applied.
type settings struct {
	region   string // lower case, as zone labels spell it
	class    nodeClassSettings
	capacity capacityInput
	policy   kubeletconfig.Policy
}

func (o Options) resolve() (settings, error) {
	s := settings{region: strings.ToLower(o.Region), policy: o.ReservationPolicy}
	if strings.TrimSpace(o.Region) == "" {
		return s, optionErr("Region", o.Region, "must name an ARM region")
	}
	fraction := o.VMMemoryOverheadPercent
	if math.IsNaN(fraction) || fraction < 0 || fraction >= 1 {
		return s, optionErr("VMMemoryOverheadPercent", fraction, "must be in [0, 1) (a fraction, 0 for the default 0.075)")
	}
	if fraction == 0 {
		fraction = DefaultVMMemoryOverheadPercent
	}
	switch o.ReservationPolicy {
	case "", kubeletconfig.PolicyMaxPods, kubeletconfig.PolicyAKSBrackets:
	default:
		return s, optionErr("ReservationPolicy", string(o.ReservationPolicy), "must be %q or %q",
			kubeletconfig.PolicyMaxPods, kubeletconfig.PolicyAKSBrackets)
	}
	class, err := resolveNodeClass(o.NodeClass)
	if err != nil {
		return s, err
	}
	maxPods := kubeletconfig.MaxPods(o.NodeClass, o.Network)
	if maxPods < 1 {
		return s, optionErr("NodeClass.spec.maxPods", maxPods, "must be at least 1")
	}
	s.class = class
	s.capacity = capacityInput{overheadFraction: fraction, osDiskSizeGB: class.osDiskSizeGB, maxPods: maxPods}
	return s, nil
}

// DefaultKnownSKUs returns the VM sizes napkit knows, from the list embedded in package azuredata
// (Karpenter's known_skus.yaml: 1,502 names).
func DefaultKnownSKUs() (map[string]bool, error) {
	data, err := azuredata.KnownSKUs()
	if err != nil {
		return nil, fmt.Errorf("instancetype: known SKUs: %w", err)
	}
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil || len(header) == 0 || header[0] != "name" {
		return nil, fmt.Errorf("instancetype: known SKUs: want a CSV with a name column first, got header %q", header)
	}
	known := make(map[string]bool, 1600)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return known, nil
		}
		if err != nil {
			return nil, fmt.Errorf("instancetype: known SKUs: %w", err)
		}
		known[rec[0]] = true
	}
}

// DefaultRegions lists the regions LoadDefault has a catalogue for, sorted.
func DefaultRegions() []string { return azuredata.CatalogRegions() }

// LoadDefault reads the embedded full-region SKU catalogue of region (eastus or westus2), with the
// disk capabilities of the sizes the embedded hand-picked records describe filled in (the catalogue
// itself has none; see fillDiskCapabilities). The other sizes keep no disk capabilities: Build marks
// their OS disk as CapabilitiesKnown false and the Catalogue's Notes count them.
//
// It reads the catalogue's compact form (see compact.go), which TestCompactCatalogue holds equal to
// reading the JSON.
func LoadDefault(region string) (*SKUList, error) {
	if data, err := azuredata.CompactCatalog(region); err == nil {
		list, err := readCompact(data)
		if err != nil {
			return nil, fmt.Errorf("instancetype: embedded catalogue %s: %w", region, err)
		}
		return list, nil
	}
	return loadDefaultJSON(region)
}

// loadDefaultJSON is LoadDefault from the embedded ARM JSON, which the compact form is made from.
func loadDefaultJSON(region string) (*SKUList, error) {
	data, err := azuredata.Catalog(region)
	if err != nil {
		return nil, fmt.Errorf("instancetype: %w", err)
	}
	list, err := ReadSKUs(data, region)
	if err != nil {
		return nil, fmt.Errorf("instancetype: embedded catalogue %s: %w", region, err)
	}
	if err := fillDiskCapabilities(list.SKUs); err != nil {
		return nil, err
	}
	return list, nil
}

// LoadFixture reads the embedded hand-picked SKU records of region (eastus, southcentralus or
// westcentralus: a few dozen sizes each, chosen for their edge cases), for examples and tests that
// want a small catalogue.
func LoadFixture(region string) (*SKUList, error) {
	data, err := azuredata.Fixture(region)
	if err != nil {
		return nil, fmt.Errorf("instancetype: %w", err)
	}
	list, err := ReadSKUs(data, region)
	if err != nil {
		return nil, fmt.Errorf("instancetype: embedded SKU records %s: %w", region, err)
	}
	return list, nil
}

// DefaultOptions are the Options of region on the embedded data, with no Azure call: the embedded
// price snapshot's prices for region and the embedded known SKUs. Add NodeClass (and Unavailable)
// per build.
func DefaultOptions(region string, network api.ClusterNetwork) (Options, error) {
	snapshot, err := pricing.DefaultRegionSnapshot(region)
	if err != nil {
		return Options{}, fmt.Errorf("instancetype: prices: %w", err)
	}
	prices, _ := snapshot.Region(region)
	known, err := DefaultKnownSKUs()
	if err != nil {
		return Options{}, err
	}
	return Options{Region: region, Network: network, Prices: prices, KnownSKUs: known}, nil
}

// BuildDefault builds region's catalogue from the embedded SKUs and DefaultOptions: what napkit
// plans with when it has no Azure account.
func BuildDefault(region string, network api.ClusterNetwork) (*Catalogue, error) {
	list, err := LoadDefault(region)
	if err != nil {
		return nil, err
	}
	opts, err := DefaultOptions(region, network)
	if err != nil {
		return nil, err
	}
	return list.Build(opts)
}
