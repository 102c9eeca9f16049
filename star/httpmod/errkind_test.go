package httpmod

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.starlark.net/starlark"
)

// TestErrorKinds: a request nothing could receive is not-sent; one a
// server read and then dropped without an answer is unknown; any answer,
// an error status too, has no error kind (the status is the script's to
// judge).
func TestErrorKinds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	drop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	defer drop.Close()
	no := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusConflict)
	}))
	defer no.Close()
	for _, tc := range []struct{ url, kind string }{
		{closed, "not-sent"},
		{drop.URL, "unknown"},
		{no.URL, ""},
	} {
		th := &starlark.Thread{}
		th.SetLocal(ClientLocal, NewClient())
		g, err := exec(t, th, `r = http.request("POST", "`+tc.url+`", body = "x", raise_errors = False)`+"\nkind = r.error_kind")
		if err != nil {
			t.Fatal(err)
		}
		if got := g["kind"]; got != starlark.String(tc.kind) {
			t.Errorf("%s: error_kind %v, want %q", tc.url, got, tc.kind)
		}
	}
}
