package kubeletconfig

// Small pointer helpers; the Config copies every pointer so it never aliases a node class.

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func ptrOr[T any](p *T, def T) *T {
	if p != nil {
		return p
	}
	return &def
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
