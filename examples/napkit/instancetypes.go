package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/instancetype"
	"github.com/napkit/napkit/manifest"
	"github.com/napkit/napkit/pricing"
)

// errHelp is returned by a subcommand that printed its help on request.
var errHelp = errors.New("help requested")

// catalogueFlags are the inputs every command that needs a catalogue shares.
type catalogueFlags struct {
	region    string
	nodeClass string
	catalog   string
	prices    string
	network   api.ClusterNetwork
}

func (c *catalogueFlags) register(fs *flag.FlagSet) {
	c.network = api.DefaultClusterNetwork()
	fs.StringVar(&c.region, "region", "eastus", "Azure region")
	fs.StringVar(&c.nodeClass, "nodeclass", "", "YAML file with the AKSNodeClass to build for (default: an AKSNodeClass with CRD defaults)")
	fs.StringVar(&c.catalog, "catalog", "", "ARM Resource SKU list JSON (default: the embedded catalogue of --region)")
	fs.StringVar(&c.prices, "prices", "", "price CSV: region,sku,on_demand_usd_per_hour[,spot_usd_per_hour] or sku,on_demand_usd_per_hour (default: the embedded snapshot)")
	fs.StringVar(&c.network.Plugin, "network-plugin", c.network.Plugin, "cluster network plugin: azure or none")
	fs.StringVar(&c.network.PluginMode, "network-plugin-mode", c.network.PluginMode, `cluster network plugin mode: overlay or "" (node subnet)`)
	fs.StringVar(&c.network.Dataplane, "network-dataplane", c.network.Dataplane, "cluster network dataplane: cilium or azure")
}

// catalogue is what loadCatalogue returns: the built catalogue and the notes worth telling the user.
type catalogue struct {
	*instancetype.Catalogue
	notes []string
}

func (c *catalogueFlags) load() (*catalogue, error) {
	nodeClass, err := c.loadNodeClass()
	if err != nil {
		return nil, err
	}
	return c.loadFor(nodeClass)
}

// loadFor builds the catalogue for the given node class.
func (c *catalogueFlags) loadFor(nodeClass *api.AKSNodeClass) (*catalogue, error) {
	if err := c.network.Validate(); err != nil {
		return nil, err
	}
	skus, err := c.loadSKUs()
	if err != nil {
		return nil, err
	}
	prices, notes, err := c.loadPrices()
	if err != nil {
		return nil, err
	}
	known, err := instancetype.DefaultKnownSKUs()
	if err != nil {
		return nil, err
	}
	built, err := skus.Build(instancetype.Options{
		Region:    c.region,
		NodeClass: nodeClass,
		Network:   c.network,
		Prices:    prices,
		KnownSKUs: known,
	})
	if err != nil {
		return nil, err
	}
	return &catalogue{Catalogue: built, notes: notes}, nil
}

func (c *catalogueFlags) loadNodeClass() (*api.AKSNodeClass, error) {
	if c.nodeClass == "" {
		nc := &api.AKSNodeClass{}
		nc.Name = "default"
		nc.Default()
		return nc, nil
	}
	set, err := manifest.DecodeFiles(c.nodeClass)
	if err != nil {
		return nil, err
	}
	if len(set.NodeClasses) != 1 {
		return nil, fmt.Errorf("--nodeclass %s: want exactly one AKSNodeClass, found %d", c.nodeClass, len(set.NodeClasses))
	}
	return set.NodeClasses[0], nil
}

func (c *catalogueFlags) loadSKUs() (*instancetype.SKUList, error) {
	if c.catalog == "" {
		return instancetype.LoadDefault(c.region)
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
	if c.prices == "" {
		snapshot, err = pricing.DefaultSnapshot()
	} else {
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

func runInstanceTypes(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("instance-types", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cat catalogueFlags
	cat.register(fs)
	output := fs.String("o", "table", "output format: json or table")
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *output != "json" && *output != "table" {
		return fmt.Errorf("-o: want json or table, got %q", *output)
	}
	built, err := cat.load()
	if err != nil {
		return err
	}
	for _, note := range built.notes {
		fmt.Fprintln(stderr, "note:", note)
	}
	view := newInstanceTypesView(built.Catalogue)
	if *output == "json" {
		return writeJSON(stdout, view)
	}
	return writeInstanceTypesTable(stdout, view)
}
