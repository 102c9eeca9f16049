package control

import "testing"

func TestLocalRemote(t *testing.T) {
	r := Local("local")
	if r.Node() != "local" {
		t.Errorf("Node() = %q", r.Node())
	}
	remoteSuite(t, r)
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
