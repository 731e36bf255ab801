package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
)

// newLogger builds the process logger from --log-level and --log-format.
func newLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, &ConfigError{Flag: "--log-level", Value: level, Reason: "must be debug, info, warn or error"}
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, &ConfigError{Flag: "--log-format", Value: format, Reason: "must be text or json"}
}

// ConfigError is a start-up setting that is missing or wrong; the controller stops before acting.
type ConfigError struct {
	// Flag names the setting (a flag, or an environment variable), Value is what it held ("" when
	// missing; never a secret's value).
	Flag, Value, Reason string
	// Err is the check's own error (an *api.FieldError of class bootstrap.ErrInvalid), when there is one.
	Err error
}

// Unwrap returns the check's error, so errors.Is(err, bootstrap.ErrInvalid) still holds.
func (e *ConfigError) Unwrap() error { return e.Err }

// IsConfigError reports whether err is, wraps or joins a ConfigError: a setting to fix, which
// restarting the process would not.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

func (e *ConfigError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Flag, e.Reason)
	}
	return fmt.Sprintf("%s %q: %s", e.Flag, e.Value, e.Reason)
}
