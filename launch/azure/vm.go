package azure

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/compute/armcompute/v7"
	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

// vmBody is the VM of a launch. Zones were validated with the request, so
// the error from armZones cannot occur here and is not threaded through.
func (l *Launcher) vmBody(req *launch.Request, b launch.Bootstrap, c launch.Choice, nicID string, tags map[string]string) armcompute.VirtualMachine {
	zones, _ := armZones(c.Offering.Zone)
	vm := armcompute.VirtualMachine{
		Location: to.Ptr(l.opts.Location),
		Identity: vmIdentity(req.Identities),
		Properties: &armcompute.VirtualMachineProperties{
			HardwareProfile: &armcompute.HardwareProfile{VMSize: to.Ptr(armcompute.VirtualMachineSizeTypes(c.Candidate.SKU))},
			StorageProfile:  storageProfile(req, b.Image, c),
			NetworkProfile: &armcompute.NetworkProfile{NetworkInterfaces: []*armcompute.NetworkInterfaceReference{{
				ID: to.Ptr(nicID),
				Properties: &armcompute.NetworkInterfaceReferenceProperties{
					Primary:      to.Ptr(true),
					DeleteOption: to.Ptr(armcompute.DeleteOptionsDelete),
				},
			}}},
			OSProfile:       osProfile(req, b.CustomData),
			SecurityProfile: securityProfile(req),
			Priority:        to.Ptr(armcompute.VirtualMachinePriorityTypesRegular),
		},
		Tags: toARMTags(tags),
	}
	if len(zones) > 0 {
		vm.Zones = to.SliceOfPtrs(zones...)
	}
	if req.UltraSSD {
		vm.Properties.AdditionalCapabilities = &armcompute.AdditionalCapabilities{UltraSSDEnabled: to.Ptr(true)}
	}
	if c.Offering.CapacityType == launch.CapacityTypeSpot {
		// Spot VMs are deleted, not deallocated, on eviction, and pay up to
		// the on-demand price (-1) so price alone never evicts them.
		vm.Properties.Priority = to.Ptr(armcompute.VirtualMachinePriorityTypesSpot)
		vm.Properties.EvictionPolicy = to.Ptr(armcompute.VirtualMachineEvictionPolicyTypesDelete)
		vm.Properties.BillingProfile = &armcompute.BillingProfile{MaxPrice: to.Ptr(-1.0)}
	}
	return vm
}

// storageProfile boots from the gallery image onto an ephemeral OS disk
// when the SKU's placement holds it, else a managed disk; both die with the VM.
func storageProfile(req *launch.Request, ref launch.ImageRef, c launch.Choice) *armcompute.StorageProfile {
	image := &armcompute.ImageReference{}
	if ref.CommunityGalleryImageID != "" {
		image.CommunityGalleryImageID = to.Ptr(ref.CommunityGalleryImageID)
	} else {
		image.ID = to.Ptr(ref.SharedGalleryID)
	}
	disk := &armcompute.OSDisk{
		Name:         to.Ptr(ResourceName(req.NodeClaimName)),
		DiskSizeGB:   to.Ptr(req.OSDiskSizeGB),
		CreateOption: to.Ptr(armcompute.DiskCreateOptionTypesFromImage),
		DeleteOption: to.Ptr(armcompute.DiskDeleteOptionTypesDelete),
	}
	if c.Candidate.UsesEphemeralOSDisk(req.OSDiskSizeGB) {
		disk.Caching = to.Ptr(armcompute.CachingTypesReadOnly)
		disk.DiffDiskSettings = &armcompute.DiffDiskSettings{
			Option:    to.Ptr(armcompute.DiffDiskOptionsLocal),
			Placement: to.Ptr(armcompute.DiffDiskPlacement(c.Candidate.EphemeralOSDiskPlacement)),
		}
	} else {
		disk.ManagedDisk = managedOSDisk(req, c.Candidate)
	}
	return &armcompute.StorageProfile{ImageReference: image, OSDisk: disk}
}

// managedOSDisk names the managed OS disk's storage account type (the one the plan priced) and its
// disk encryption set; nil when there is neither.
func managedOSDisk(req *launch.Request, c launch.Candidate) *armcompute.ManagedDiskParameters {
	if req.OSDiskEncryptionSetID == "" && c.OSDiskStorageAccountType == "" {
		return nil
	}
	params := &armcompute.ManagedDiskParameters{}
	if c.OSDiskStorageAccountType != "" {
		params.StorageAccountType = to.Ptr(armcompute.StorageAccountTypes(c.OSDiskStorageAccountType))
	}
	if req.OSDiskEncryptionSetID != "" {
		params.DiskEncryptionSet = &armcompute.DiskEncryptionSetParameters{ID: to.Ptr(req.OSDiskEncryptionSetID)}
	}
	return params
}

// osProfile allows SSH key login only and carries the bootstrap customData.
func osProfile(req *launch.Request, customData bootstrap.Secret) *armcompute.OSProfile {
	user := req.AdminUser()
	return &armcompute.OSProfile{
		AdminUsername: to.Ptr(user),
		ComputerName:  to.Ptr(ResourceName(req.NodeClaimName)),
		CustomData:    to.Ptr(customData.Reveal()),
		LinuxConfiguration: &armcompute.LinuxConfiguration{
			DisablePasswordAuthentication: to.Ptr(true),
			SSH: &armcompute.SSHConfiguration{PublicKeys: []*armcompute.SSHPublicKey{{
				Path:    to.Ptr("/home/" + user + "/.ssh/authorized_keys"),
				KeyData: to.Ptr(req.SSHPublicKey),
			}}},
		},
	}
}

// securityProfile is nil unless encryption at host or trusted launch is on.
func securityProfile(req *launch.Request) *armcompute.SecurityProfile {
	if !req.EncryptionAtHost && !req.TrustedLaunch.Enabled {
		return nil
	}
	sp := &armcompute.SecurityProfile{}
	if req.EncryptionAtHost {
		sp.EncryptionAtHost = to.Ptr(true)
	}
	if req.TrustedLaunch.Enabled {
		sp.SecurityType = to.Ptr(armcompute.SecurityTypesTrustedLaunch)
		sp.UefiSettings = &armcompute.UefiSettings{
			SecureBootEnabled: to.Ptr(req.TrustedLaunch.SecureBoot),
			VTpmEnabled:       to.Ptr(req.TrustedLaunch.VTPM),
		}
	}
	return sp
}

// vmIdentity assigns the user-assigned identities, or nothing.
func vmIdentity(ids []string) *armcompute.VirtualMachineIdentity {
	if len(ids) == 0 {
		return nil
	}
	identity := &armcompute.VirtualMachineIdentity{
		Type:                   to.Ptr(armcompute.ResourceIdentityTypeUserAssigned),
		UserAssignedIdentities: make(map[string]*armcompute.UserAssignedIdentitiesValue, len(ids)),
	}
	for _, id := range ids {
		identity.UserAssignedIdentities[id] = &armcompute.UserAssignedIdentitiesValue{}
	}
	return identity
}
