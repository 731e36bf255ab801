package chartrender

import (
	"fmt"

	sigsyaml "sigs.k8s.io/yaml"
)

func jsonToYAML(data []byte) ([]byte, error) {
	y, err := sigsyaml.JSONToYAML(data)
	if err != nil {
		return nil, fmt.Errorf("converting to YAML: %w", err)
	}
	return y, nil
}
