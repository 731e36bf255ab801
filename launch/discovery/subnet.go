package discovery

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/napkit/napkit/imagefamily/bootstrap"
)

// ErrSubnetNotFound marks a subnet that does not exist: no NIC can be created in it.
var ErrSubnetNotFound = errors.New("subnet not found")

// SubnetsOptions configure NewSubnets.
type SubnetsOptions struct {
	Credential    azcore.TokenCredential
	ClientOptions *arm.ClientOptions
}

// Subnets reads subnets, as upstream's SubnetsReady check does
// (pkg/controllers/nodeclass/status/subnet.go).
type Subnets struct {
	opts    SubnetsOptions
	clients map[string]*armnetwork.SubnetsClient // by subscription
}

// NewSubnets returns the reader; it makes no call.
func NewSubnets(o SubnetsOptions) *Subnets {
	return &Subnets{opts: o, clients: map[string]*armnetwork.SubnetsClient{}}
}

// Check reads subnet id. A 404 wraps ErrSubnetNotFound; an ID that does not parse is an error
// naming it; any other failure is returned as it is.
func (s *Subnets) Check(ctx context.Context, id string) error {
	sub, err := bootstrap.ParseSubnetID(id)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	client, err := s.client(sub.SubscriptionID)
	if err != nil {
		return err
	}
	_, err = client.Get(ctx, sub.ResourceGroup, sub.VirtualNetwork, sub.Name, nil)
	if err == nil {
		return nil
	}
	if re, ok := errors.AsType[*azcore.ResponseError](err); ok && re.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%w: %s: %w", ErrSubnetNotFound, id, err)
	}
	return fmt.Errorf("discovery: read subnet %s: %w", id, err)
}

// client returns the subscription's client. Status passes run one at a time, so the map needs
// no lock.
func (s *Subnets) client(subscription string) (*armnetwork.SubnetsClient, error) {
	if c, ok := s.clients[subscription]; ok {
		return c, nil
	}
	c, err := armnetwork.NewSubnetsClient(subscription, s.opts.Credential, s.opts.ClientOptions)
	if err != nil {
		return nil, fmt.Errorf("subnets client: %w", err)
	}
	s.clients[subscription] = c
	return c, nil
}
