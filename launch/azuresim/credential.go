package azuresim

import (
	"context"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Token is the bearer token Credential issues and the simulator requires.
const Token = "azuresim-token"

// Credential is an azcore.TokenCredential that returns Token.
type Credential struct{}

var _ azcore.TokenCredential = Credential{}

// GetToken returns Token, valid for an hour.
func (Credential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: Token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}
