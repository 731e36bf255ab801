// Package azuresku converts the Azure SDK's Resource SKU records (armcompute.ResourceSKU, as
// armcompute.ResourceSKUsClient lists them) into instancetype's SDK-free SKU records. It is the only
// place the catalogue meets the SDK: package instancetype, and everything that plans with it, builds
// without it.
//
// The records go through ARM's JSON, the SDK's own MarshalJSON into instancetype.ReadSKUs, so a
// listed record and the same record saved as JSON (the CLI's --catalog, the embedded catalogues) are
// read by one piece of code and cannot drift apart.
package azuresku

import (
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"

	"github.com/napkit/napkit/instancetype"
)

// Read converts records listed for region: each becomes an instancetype.SKU with region's zones and
// restrictions applied, or an Unreadable exclusion when a capability does not read (see
// instancetype.ReadSKUs). A nil record is an error wrapping instancetype.ErrBadSKUList.
func Read(records []*armcompute.ResourceSKU, region string) (*instancetype.SKUList, error) {
	if len(records) == 0 {
		return &instancetype.SKUList{SKUs: []*instancetype.SKU{}}, nil
	}
	data, err := json.Marshal(records)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", instancetype.ErrBadSKUList, err)
	}
	return instancetype.ReadSKUs(data, region)
}

// Build is Read followed by SKUList.Build: the catalogue of the records for opts.Region.
func Build(records []*armcompute.ResourceSKU, opts instancetype.Options) (*instancetype.Catalogue, error) {
	list, err := Read(records, opts.Region)
	if err != nil {
		return nil, err
	}
	return list.Build(opts)
}
