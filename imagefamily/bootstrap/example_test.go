package bootstrap_test

import (
	"encoding/base64"
	"fmt"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	corev1 "k8s.io/api/core/v1"
)

func ExampleQuote() {
	q, _ := bootstrap.Quote("label", "it's $(not) a command")
	fmt.Println(q)
	// Output: 'it'\''s $(not) a command'
}

func ExampleSecret() {
	token := bootstrap.NewSecret("abcdef.0123456789abcdef")
	fmt.Printf("%v %s %q %x %#v\n", token, token, token, token, token)
	// Output: <redacted> <redacted> <redacted> <redacted> bootstrap.Secret("<redacted>")
}

func ExampleCanKubeletSetLabel() {
	for _, key := range []string{"example.com/team", "node.kubernetes.io/pool", "node-restriction.kubernetes.io/pool"} {
		fmt.Println(key, bootstrap.CanKubeletSetLabel(key))
	}
	// Output:
	// example.com/team true
	// node.kubernetes.io/pool true
	// node-restriction.kubernetes.io/pool false
}

func ExampleFormatTaints() {
	fmt.Println(bootstrap.FormatTaints([]corev1.Taint{
		{Key: "sku", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute},
	}))
	// Output: sku=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute
}

func ExampleDriverForSKU() {
	fmt.Printf("%+v\n", bootstrap.DriverForSKU("Standard_NC8ads_A10_v4"))
	// Output: {Type:grid Version:570.211.01 ImageSHA:20260522192315}
}

func ExampleMachineName() {
	fmt.Println(bootstrap.MachineName("default-a1b2c"))
	fmt.Println(len(bootstrap.MachineName("123456789-123456789-123456789-a1b2c")))
	// Output:
	// default-a1b2c
	// 34
}

func ExampleHydrate() {
	resp := bootstrap.NodeBootstrapping{
		CustomData: base64.StdEncoding.EncodeToString([]byte("TOKEN=" + bootstrap.TokenPlaceholder)),
		CSE:        "/opt/azure/bootstrap.sh " + bootstrap.TokenPlaceholder,
	}
	h, err := bootstrap.Hydrate(resp, bootstrap.NewSecret("abcdef.0123456789abcdef"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.CSE)
	fmt.Println(string(h.CSE.Reveal()))
	// Output:
	// /opt/azure/bootstrap.sh <redacted>
	// /opt/azure/bootstrap.sh abcdef.0123456789abcdef
}
