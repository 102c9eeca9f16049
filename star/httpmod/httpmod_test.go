package httpmod

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/star"
)

func exec(t *testing.T, th *starlark.Thread, src string) (starlark.StringDict, error) {
	t.Helper()
	return starlark.ExecFile(th, "t.star", src, starlark.StringDict{"http": Module})
}

func TestRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Method", r.Method)
		w.Header().Set("X-Type", r.Header.Get("Content-Type"))
		w.Header().Set("X-Token", r.Header.Get("X-Token"))
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(`{"echo": ` + string(body) + `}`))
	}))
	defer srv.Close()
	th := &starlark.Thread{}
	client := NewClient()
	th.SetLocal(ClientLocal, client)
	g, err := exec(t, th, `
r = http.request("put", "`+srv.URL+`/x", json = {"value": [1, "a"]}, headers = {"X-Token": "t"})
status, method, ctype, token = r.status, r.headers["X-Method"], r.headers["X-Type"], r.headers["X-Token"]
echo = r.json()["echo"]
raw = http.request("POST", "`+srv.URL+`", body = b"[2]").json()["echo"]
err = r.error
`)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"status": "418", "method": `"PUT"`, "ctype": `"application/json"`, "token": `"t"`,
		"echo": `{"value": [1, "a"]}`, "raw": "[2]", "err": `""`,
	} {
		if got := g[k].String(); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer notJSON.Close()
	for _, tc := range []struct{ src, want string }{
		{`http.request("GET", "` + closed + `")`, "connection refused"},
		{`http.request("GET", "` + notJSON.URL + `", body = "a", json = 1)`, "not both"},
		{`http.request("GET", "` + notJSON.URL + `", body = 1)`, "string or bytes"},
		{`http.request("GET", "` + notJSON.URL + `", headers = {"a": 1})`, "strings to strings"},
		{`http.request("GET", "` + notJSON.URL + `", timeout = 0)`, "timeout must be positive"},
		{`http.request("GET", "` + notJSON.URL + `").json()`, "response.json (HTTP 200)"},
		{`http.request("GET", "://bad")`, "missing protocol scheme"},
		// raise_errors = False: no answer is a status-0 response naming why.
		{`r = http.request("GET", "` + closed + `", raise_errors = False)
fail(r.status, "refused" in r.error)`, "fail: 0 True"},
	} {
		_, err := exec(t, &starlark.Thread{}, tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestRequestCancel: a request to a server that never answers returns when
// the thread's context ends, naming the cause.
func TestRequestCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancelCause(context.Background())
	th := &starlark.Thread{}
	star.SetContext(th, ctx)
	done := make(chan error)
	go func() {
		_, err := exec(t, th, `http.request("GET", "`+srv.URL+`", timeout = "1h")`)
		done <- err
	}()
	<-arrived
	cancel(errors.New("op timed out"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "op timed out") {
		t.Fatalf("request after cancel: %v, want the cause", err)
	}
}
