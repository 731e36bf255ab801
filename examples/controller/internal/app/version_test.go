package app

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/buildinfo"
)

func TestVersionPrintsBuildInfo(t *testing.T) {
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	var f Flags
	f.Register(fs)
	require.NoError(t, fs.Parse([]string{"--version"}))
	var stdout, stderr bytes.Buffer
	require.NoError(t, Run(context.Background(), &f, &stdout, &stderr))
	info, ok := buildinfo.Read()
	require.True(t, ok)
	assert.Equal(t, "napkit-controller "+info.String()+"\n", stdout.String())
	assert.Empty(t, stderr.String())
}
