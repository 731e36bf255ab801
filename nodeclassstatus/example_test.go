package nodeclassstatus_test

import (
	"fmt"
	"time"

	"github.com/napkit/napkit/api"
	"github.com/napkit/napkit/imagefamily"
	"github.com/napkit/napkit/nodeclassstatus"
)

func ExampleCompute() {
	class := &api.AKSNodeClass{}
	class.Default()
	out, _ := nodeclassstatus.Compute(nodeclassstatus.Input{
		Class: class, ServerVersion: "1.33.2", Now: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC),
		Available: []imagefamily.AvailableVersion{
			{Definition: "2204gen2containerd", Version: "202611.01.0"},
			{Definition: "2204gen2containerd", Version: "202612.01.0"},
		},
	})
	fmt.Println(out.Status.KubernetesVersion)
	for _, img := range out.Status.Images {
		fmt.Println(nodeclassstatus.VersionOf(img.ID))
	}
	for _, c := range out.Status.Conditions {
		fmt.Println(c.Type, c.Status)
	}
	// Output:
	// 1.33.2
	// 202612.01.0
	// KubernetesVersionReady True
	// ImagesReady True
	// ValidationSucceeded True
	// LocalDNSReady True
	// Ready True
}
