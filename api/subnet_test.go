package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/napkit/napkit/api"
)

func TestAKSNodeClassSubnetID(t *testing.T) {
	const cluster, own = "cluster-subnet", "class-subnet"
	empty := ""
	for _, tc := range []struct {
		name  string
		class *api.AKSNodeClass
		want  string
	}{
		{"no class", nil, cluster},
		{"no vnetSubnetID", &api.AKSNodeClass{}, cluster},
		{"empty vnetSubnetID", &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{VNETSubnetID: &empty}}, cluster},
		{"its own subnet", &api.AKSNodeClass{Spec: api.AKSNodeClassSpec{VNETSubnetID: new(own)}}, own},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.class.SubnetID(cluster)) })
	}
}
