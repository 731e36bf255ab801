package discovery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
)

// ErrDiskEncryptionSetAccess marks a disk encryption set the controlling identity may not read:
// it lacks the Reader role on it, so VMs whose disks it encrypts cannot be created.
var ErrDiskEncryptionSetAccess = errors.New("no read access to the disk encryption set")

// DiskEncryptionSetOptions configure NewDiskEncryptionSet. ID is the set's ARM resource ID.
type DiskEncryptionSetOptions struct {
	ID            string
	Credential    azcore.TokenCredential
	ClientOptions *arm.ClientOptions
}

// DiskEncryptionSet reads one disk encryption set, as upstream's AKSNodeClass validation does
// (pkg/controllers/nodeclass/status/validation.go): reading it proves the Reader role.
type DiskEncryptionSet struct {
	id     *arm.ResourceID
	client *armcompute.DiskEncryptionSetsClient
}

// NewDiskEncryptionSet parses the ID and builds the client; it makes no call.
func NewDiskEncryptionSet(o DiskEncryptionSetOptions) (*DiskEncryptionSet, error) {
	id, err := arm.ParseResourceID(o.ID)
	if err != nil || !resourceTypeIs(id, "Microsoft.Compute/diskEncryptionSets") {
		return nil, fmt.Errorf("discovery: disk encryption set ID %q: want /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/diskEncryptionSets/<name>", o.ID)
	}
	client, err := armcompute.NewDiskEncryptionSetsClient(id.SubscriptionID, o.Credential, o.ClientOptions)
	if err != nil {
		return nil, fmt.Errorf("disk encryption sets client: %w", err)
	}
	return &DiskEncryptionSet{id: id, client: client}, nil
}

// Check reads the set. A 403 wraps ErrDiskEncryptionSetAccess, with the grant to make; any other
// failure (missing set, throttling past retries) is returned as it is.
func (d *DiskEncryptionSet) Check(ctx context.Context) error {
	_, err := d.client.Get(ctx, d.id.ResourceGroupName, d.id.Name, nil)
	if err == nil {
		return nil
	}
	if re, ok := errors.AsType[*azcore.ResponseError](err); ok && re.StatusCode == http.StatusForbidden {
		return fmt.Errorf("%w %s: grant the controlling identity the Reader role on it: %w", ErrDiskEncryptionSetAccess, d.id, err)
	}
	return fmt.Errorf("discovery: read disk encryption set %s: %w", d.id, err)
}

func resourceTypeIs(id *arm.ResourceID, t string) bool {
	return strings.EqualFold(id.ResourceType.String(), t)
}
