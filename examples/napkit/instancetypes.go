package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/pricing"
)

// catalogueFlags are the inputs every command that needs a catalogue shares.
type catalogueFlags struct {
	region    string
	nodeClass string
	catalog   string
	prices    string
	pricesURL string
	network   api.ClusterNetwork
	// pending is the inputs preload started reading, taken by the first loadFor or buildEarly.
	pending chan catalogueInputs
	// early is the catalogue buildEarly started, if it did.
	early *earlyCatalogue
}

// catalogueInputs are what a catalogue is built from besides the node class and the network: the
// SKU list, the region's prices and the known SKUs, which depend on the flags alone.
type catalogueInputs struct {
	skus   *instancetype.SKUList
	prices pricing.RegionPrices
	notes  []string
	known  map[string]bool
	err    error
}

// preload starts reading the catalogue inputs while the manifests are decoded: parsing the embedded
// SKU list and price snapshot is a fixed ~80 ms of CPU that otherwise adds to every plan's wall time.
// Live prices are not preloaded, so that bad manifests never cost a request to Azure.
func (c *catalogueFlags) preload() {
	if c.prices == "live" {
		return
	}
	pending := make(chan catalogueInputs, 1)
	c.pending = pending
	go func() { pending <- c.loadInputs() }()
}

// inputs returns the preloaded inputs once, then reads them anew.
func (c *catalogueFlags) inputs() catalogueInputs {
	if c.pending != nil {
		in := <-c.pending
		c.pending = nil
		return in
	}
	return c.loadInputs()
}

func (c *catalogueFlags) loadInputs() catalogueInputs {
	var in catalogueInputs
	if in.skus, in.err = c.loadSKUs(); in.err != nil {
		return in
	}
	if in.prices, in.notes, in.err = c.loadPrices(); in.err != nil {
		return in
	}
	in.known, in.err = instancetype.DefaultKnownSKUs()
	return in
}

func (c *catalogueFlags) register(fs *flag.FlagSet) {
	c.network = api.DefaultClusterNetwork()
	fs.StringVar(&c.region, "region", "eastus", "Azure region")
	fs.StringVar(&c.catalog, "catalog", "", "ARM Resource SKU list JSON (default: the embedded catalogue of --region)")
	fs.StringVar(&c.prices, "prices", "", "live: fetch the region's prices from the Azure Retail Prices API now; or a price CSV: region,sku,on_demand_usd_per_hour[,spot_usd_per_hour] or sku,on_demand_usd_per_hour (default: the embedded snapshot)")
	fs.StringVar(&c.pricesURL, "prices-url", pricing.DefaultBaseURL, "--prices live: the Retail Prices API endpoint")
	fs.StringVar(&c.network.Plugin, "network-plugin", c.network.Plugin, "cluster network plugin: azure or none")
	fs.StringVar(&c.network.PluginMode, "network-plugin-mode", c.network.PluginMode, `cluster network plugin mode: overlay or "" (node subnet)`)
	fs.StringVar(&c.network.Dataplane, "network-dataplane", c.network.Dataplane, "cluster network dataplane: cilium or azure")
}

// catalogue is what loadCatalogue returns: the built catalogue and the notes worth telling the user.
type catalogue struct {
	*instancetype.Catalogue
	notes  []string
	prices pricing.RegionPrices
}

// registerNodeClass adds --nodeclass, for the command that builds a catalogue without a NodePool;
// the others take the AKSNodeClass their NodePool names from -f.
func (c *catalogueFlags) registerNodeClass(fs *flag.FlagSet) {
	fs.StringVar(&c.nodeClass, "nodeclass", "", "YAML file with the AKSNodeClass to build for (default: an AKSNodeClass with CRD defaults)")
}

func (c *catalogueFlags) load(stdin io.Reader, stderr io.Writer) (*catalogue, error) {
	nodeClass, err := c.loadNodeClass(stdin, stderr)
	if err != nil {
		return nil, err
	}
	return c.loadFor(nodeClass)
}

// loadFor builds the catalogue for the given node class, or takes the one buildEarly built for it.
func (c *catalogueFlags) loadFor(nodeClass *api.AKSNodeClass) (*catalogue, error) {
	if err := c.network.Validate(); err != nil {
		return nil, networkFlagError(err)
	}
	if cat, err, ok := c.takeEarly(nodeClass); ok {
		return cat, err
	}
	return c.build(c.inputs(), nodeClass)
}

func (c *catalogueFlags) build(in catalogueInputs, nodeClass *api.AKSNodeClass) (*catalogue, error) {
	if in.err != nil {
		return nil, in.err
	}
	built, err := in.skus.Build(instancetype.Options{
		Region:    c.region,
		NodeClass: nodeClass,
		Network:   c.network,
		Prices:    in.prices,
		KnownSKUs: in.known,
	})
	if err != nil {
		return nil, err
	}
	return &catalogue{Catalogue: built, notes: in.notes, prices: in.prices}, nil
}

func (c *catalogueFlags) loadNodeClass(stdin io.Reader, stderr io.Writer) (*api.AKSNodeClass, error) {
	if c.nodeClass == "" {
		nc := &api.AKSNodeClass{}
		nc.Name = "default"
		nc.Default()
		return nc, nil
	}
	set, err := manifestFiles{c.nodeClass}.read(stdin, stderr)
	if err != nil {
		return nil, fmt.Errorf("--nodeclass: %w", err)
	}
	if len(set.NodeClasses) != 1 {
		return nil, usagef("--nodeclass %s: want exactly one AKSNodeClass, found %d", c.nodeClass, len(set.NodeClasses))
	}
	return set.NodeClasses[0], nil
}

func (c *catalogueFlags) loadSKUs() (*instancetype.SKUList, error) {
	if c.catalog == "" {
		skus, err := instancetype.LoadDefault(c.region)
		if err != nil {
			return nil, &usageError{err: &relabeled{msg: fmt.Sprintf("--region %q: no embedded catalogue (it has %s); pass --catalog for another region",
				c.region, strings.Join(instancetype.DefaultRegions(), ", ")), err: err}}
		}
		return skus, nil
	}
	data, err := os.ReadFile(c.catalog)
	if err != nil {
		return nil, fmt.Errorf("--catalog: %w", err)
	}
	skus, err := instancetype.ReadSKUs(data, c.region)
	if err != nil {
		return nil, fmt.Errorf("--catalog %s: %w", c.catalog, err)
	}
	return skus, nil
}

func (c *catalogueFlags) loadPrices() (pricing.RegionPrices, []string, error) {
	var snapshot *pricing.Snapshot
	var err error
	switch c.prices {
	case "":
		snapshot, err = pricing.DefaultRegionSnapshot(c.region) // the one region Region reads below
	case "live":
		snapshot, err = livePrices(c.pricesURL, c.region)
	default:
		snapshot, err = readPrices(c.prices, c.region)
	}
	if err != nil {
		return pricing.RegionPrices{}, nil, err
	}
	regionPrices, note := snapshot.Region(c.region)
	var notes []string
	if note.Message != "" {
		notes = append(notes, note.Message)
	}
	return regionPrices, notes, nil
}

func readPrices(path, region string) (*pricing.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	defer f.Close()
	snapshot, err := pricing.ParseCSV(f, region)
	if err != nil {
		return nil, fmt.Errorf("--prices %s: %w", path, err)
	}
	return snapshot, nil
}

func runInstanceTypes(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("instance-types", flag.ContinueOnError)
	var cat catalogueFlags
	cat.register(fs)
	cat.registerNodeClass(fs)
	var output outputFlag
	output.register(fs, "table", "table", "json", "yaml")
	if err := parseArgs(fs, args, stdout); err != nil {
		return err
	}
	if err := output.validate(); err != nil {
		return err
	}
	built, err := cat.load(stdin, stderr)
	if err != nil {
		return err
	}
	for _, note := range built.notes {
		fmt.Fprintln(stderr, "note:", note)
	}
	view := newInstanceTypesView(built.Catalogue, func(sku string) bool {
		p, ok := built.prices.Lookup(sku)
		return ok && p.SpotKnown
	})
	if output.value == "table" {
		return writeInstanceTypesTable(stdout, view)
	}
	return writeDocument(stdout, output.value, view)
}

// networkFlags name the flag behind each field of api.ClusterNetwork the CLI sets.
var networkFlags = map[string]string{
	"plugin":     "--network-plugin",
	"pluginMode": "--network-plugin-mode",
	"dataplane":  "--network-dataplane",
}

// networkFlagError says a cluster network error in terms of its flags: exit 2, with the value.
func networkFlagError(err error) error {
	var ve *api.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	msgs := make([]string, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		name, ok := networkFlags[fe.Field]
		if !ok {
			name = fe.Field
		}
		msgs = append(msgs, fmt.Sprintf("%s %s: %s", name, fe.ValueString(), fe.Reason))
	}
	return &usageError{err: &relabeled{msg: strings.Join(msgs, "; "), err: err}}
}
