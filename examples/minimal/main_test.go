package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README.md shows this program verbatim, and the output it prints.
func TestREADMEShowsThisProgram(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```go\n"+string(src)+"```\n", "README's minimal program is examples/minimal/main.go")
}

func Example_main() {
	main()
	// Output:
	// general-purpose-1: Standard_D8pls_v6 in eastus-3, $0.2750/h, 5 pods
	// total $0.2750/h
}
