package azure

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/napkit/napkit/imagefamily/bootstrap"
	"github.com/napkit/napkit/launch"
)

func TestBatchResults(t *testing.T) {
	members := []bootstrap.BatchMember{{Name: "m0"}, {Name: "m1"}, {Name: "m2"}}
	tests := []struct {
		name       string
		status     int
		body       string
		wantFailed map[int]string // member index -> code; others nil
		whole      bool           // the same error for every member
		unreadable bool
	}{
		{name: "client error details at the top level", status: 400,
			body: `{"code":"BatchMachineClientError","message":"...","details":[` +
				`{"code":"InvalidParameter","message":"bad","target":"m1"},{"code":"InternalOperationError","message":"oops","target":"M2"}],"subcode":""}`,
			wantFailed: map[int]string{1: "InvalidParameter", 2: "InternalOperationError"}},
		{name: "internal error details in the message", status: 500,
			body:       `{"code":"BatchMachineInternalServerError","message":"{\"details\":[{\"code\":\"InternalOperationError\",\"message\":\"oops\",\"target\":\"m0\"}]}"}`,
			wantFailed: map[int]string{0: "InternalOperationError"}},
		{name: "wrapped body is read too", status: 400,
			body:       `{"error":{"code":"BatchMachineClientError","details":[{"code":"SkuNotAvailable","message":"no","target":"m2"}]}}`,
			wantFailed: map[int]string{2: "SkuNotAvailable"}},
		{name: "a plain error fails the whole batch", status: 400,
			body: `{"error":{"code":"VMSizeNotSupported","message":"no"}}`, whole: true},
		{name: "detail about a machine not in the batch", status: 400,
			body: `{"code":"BatchMachineClientError","details":[{"code":"X","message":"x","target":"other"}]}`, whole: true, unreadable: true},
		{name: "batch code without details", status: 400,
			body: `{"code":"BatchMachineClientError","message":"?"}`, whole: true, unreadable: true},
		{name: "internal message that is not JSON", status: 500,
			body: `{"code":"BatchMachineInternalServerError","message":"oops"}`, whole: true, unreadable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := responseError(tt.status, tt.body) // classify_machine_internal_test.go
			got := batchResults(err, members)
			require.Len(t, got, len(members))
			if tt.whole {
				for i, e := range got {
					assert.Equal(t, got[0].Error(), e.Error())
					var re *azcore.ResponseError
					require.ErrorAs(t, e, &re)
					assert.Equal(t, err.(*azcore.ResponseError).ErrorCode, re.ErrorCode)
					if i > 0 {
						var first *azcore.ResponseError
						require.ErrorAs(t, got[0], &first)
						assert.NotSame(t, first, re, "each member reads its own copy of the answer")
					}
					assert.Equal(t, tt.unreadable, errors.Is(e, errBatchAnswerUnreadable))
					assert.Equal(t, tt.unreadable, machineMayExist(e), "an unreadable answer may hide made machines")
				}
				return
			}
			for i, e := range got {
				code, failed := tt.wantFailed[i]
				if !failed {
					assert.NoError(t, e, members[i].Name)
					assert.True(t, machineMayExist(e))
					continue
				}
				me, ok := errors.AsType[*machineBatchError](e)
				require.True(t, ok, "%T", e)
				assert.Equal(t, code, me.Code)
				assert.Equal(t, members[i].Name, me.Machine)
				assert.Equal(t, tt.status, me.Status)
				var re *azcore.ResponseError
				assert.ErrorAs(t, e, &re)
				assert.False(t, machineMayExist(e), "a machine its batch refused was not made")
			}
		})
	}
}

func TestBatchRetryOptionsDropServerError(t *testing.T) {
	got := batchRetryOptions(policy.RetryOptions{MaxRetries: 5})
	assert.Equal(t, int32(5), got.MaxRetries)
	assert.Equal(t, []int{408, 429, 502, 503, 504}, got.StatusCodes)
	custom := []int{429, 500}
	got = batchRetryOptions(policy.RetryOptions{StatusCodes: custom})
	assert.Equal(t, []int{429}, got.StatusCodes)
	assert.Equal(t, []int{429, 500}, custom, "the launcher's options are not modified")
}

func TestBatchTemplateIgnoresPerMachineFields(t *testing.T) {
	body := bootstrap.Machine{Zones: []string{"1"}}
	body.Properties.Hardware.VMSize = "Standard_D2s_v5"
	body.Properties.Tags = map[string]string{"a": "1"}
	k1, tpl, err := bootstrap.BatchTemplate(&body)
	require.NoError(t, err)
	assert.Nil(t, tpl.Zones)
	assert.Nil(t, tpl.Properties.Tags)
	assert.Equal(t, map[string]string{"a": "1"}, body.Properties.Tags, "the caller's body is untouched")

	other := body
	other.Zones, other.Properties.Tags = nil, map[string]string{"b": "2"}
	k2, _, err := bootstrap.BatchTemplate(&other)
	require.NoError(t, err)
	assert.Equal(t, k1, k2)
	other.Properties.Priority = "Spot"
	k3, _, err := bootstrap.BatchTemplate(&other)
	require.NoError(t, err)
	assert.NotEqual(t, k1, k3)

	m := bootstrap.MemberOf("m", &other)
	assert.Equal(t, []string{}, m.Zones, "no zones are sent as []")
	assert.Equal(t, map[string]string{"b": "2"}, m.Tags)
}

// A panicking batch fails its waiters instead of leaving them waiting.
func TestBatcherPanicFailsWaiters(t *testing.T) {
	exec := func(context.Context, *bootstrap.Machine, []bootstrap.BatchMember) []error { panic("boom") }
	bt := newMachineBatcher(time.Millisecond, time.Second, 50, exec, nil, slog.New(slog.DiscardHandler))
	errs := make(chan error, 2)
	for _, name := range []string{"a", "b"} {
		go func() { errs <- bt.create(context.Background(), name, bootstrap.Machine{}) }()
	}
	for range 2 {
		err := <-errs
		assert.ErrorIs(t, err, launch.ErrCloud)
		assert.ErrorContains(t, err, "boom")
	}
}

// A batch reaching the size limit is sent without waiting for its timers.
func TestBatcherSendsFullBatch(t *testing.T) {
	sizes := make(chan int, 4)
	exec := func(_ context.Context, _ *bootstrap.Machine, ms []bootstrap.BatchMember) []error {
		sizes <- len(ms)
		return make([]error, len(ms))
	}
	bt := newMachineBatcher(time.Hour, time.Hour, 3, exec, nil, slog.New(slog.DiscardHandler))
	errs := make(chan error, 6)
	for i := range 6 {
		go func() { errs <- bt.create(context.Background(), string(rune('a'+i)), bootstrap.Machine{}) }()
	}
	for range 6 {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, 3, <-sizes)
	assert.Equal(t, 3, <-sizes)
	bt.mu.Lock()
	defer bt.mu.Unlock()
	assert.Empty(t, bt.open)
}

// FuzzBatchResults: whatever AKS answers a batch PUT with, every member gets exactly one non-nil
// error or acceptance, and the split never panics.
func FuzzBatchResults(f *testing.F) {
	f.Add(400, `{"code":"BatchMachineClientError","details":[{"code":"InvalidParameter","message":"bad","target":"m1"}]}`)
	f.Add(500, `{"code":"BatchMachineInternalServerError","message":"{\"details\":[{\"code\":\"X\",\"target\":\"m0\"}]}"}`)
	f.Add(400, `{"error":{"code":"BatchMachineClientError","details":[{"target":"M2"},{"target":"m2"}]}}`)
	f.Add(409, `{"error":{"code":"Conflict"}}`)
	f.Add(500, `not json`)
	members := []bootstrap.BatchMember{{Name: "m0"}, {Name: "m1"}, {Name: "m2"}}
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 400 || status > 599 {
			return
		}
		results := batchResults(responseError(status, body), members)
		require.Len(t, results, len(members))
		failed := 0
		for _, e := range results {
			if e != nil {
				failed++
			}
		}
		// A batch error either fails every member (an unreadable or whole-batch answer) or names
		// the members that failed; it never accepts them all.
		assert.Positive(t, failed, "a batch error accepted every machine")
	})
}
