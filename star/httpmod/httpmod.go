// Package httpmod is the Starlark "http" module: HTTP requests for clients
// written in Starlark (client.starlark).
//
//	r = http.request("PUT", "http://" + addr + "/kv/x", json = {"value": 1}, timeout = "1s")
//	r.status, r.headers["Content-Type"], r.body, r.json()
//
// A request ends at its timeout or when the calling thread's context
// (star.Context) ends, whichever is first. Requests share one pooled
// http.Client per run (ClientLocal; a package-wide one elsewhere), so a
// worker's keep-alive connection is reused from op to op.
//
// A request that gets no answer (refused, reset, timed out) raises, unless
// raise_errors = False: then it returns a response with status 0 and error
// set, so a client can tell "never sent" from "sent, fate unknown" itself —
// Starlark has no try/except.
package httpmod

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/client/errkind"
	"github.com/faultline/faultline/star"
)

// ClientLocal is the thread-local key of the run's *http.Client.
const ClientLocal = "faultline.http.client"

// DefaultTimeout bounds a request when the script gives no timeout.
const DefaultTimeout = 5 * time.Second

// maxBody bounds a response body read into a script.
const maxBody = 16 << 20

// Module is the Starlark "http" module.
func init() { star.Register("http", Module) }

var Module = &starlarkstruct.Module{
	Name: "http",
	Members: starlark.StringDict{
		"request": starlark.NewBuiltin("http.request", request),
	},
}

// NewClient returns a client for one run: keep-alive connections pooled
// generously, since every worker talks to a node at once.
func NewClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil, // a test reaches its nodes directly, never via $HTTP_PROXY
		DialContext:         (&net.Dialer{Timeout: DefaultTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     30 * time.Second,
	}}
}

// shared serves threads that carry no run client (db recipes, tests).
var shared = NewClient()

func threadClient(thread *starlark.Thread) *http.Client {
	if c, ok := thread.Local(ClientLocal).(*http.Client); ok && c != nil {
		return c
	}
	return shared
}

func request(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		method, url string
		headers     *starlark.Dict
		body        starlark.Value = starlark.None
		jsonBody    starlark.Value = starlark.None
		timeout                    = star.Duration(DefaultTimeout)
		raise                      = true
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "method", &method, "url", &url, "headers?", &headers,
		"body?", &body, "json?", &jsonBody, "timeout?", &timeout, "raise_errors?", &raise); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	method = strings.ToUpper(method)
	var payload []byte
	contentType := ""
	switch {
	case body != starlark.None && jsonBody != starlark.None:
		return nil, fmt.Errorf("%s: give body or json, not both", b.Name())
	case jsonBody != starlark.None:
		enc, err := starlark.Call(thread, json.Module.Members["encode"], starlark.Tuple{jsonBody}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: json: %w", b.Name(), err)
		}
		payload, contentType = []byte(enc.(starlark.String)), "application/json"
	case body != starlark.None:
		switch x := body.(type) {
		case starlark.String:
			payload = []byte(x)
		case starlark.Bytes:
			payload = []byte(x)
		default:
			return nil, fmt.Errorf("%s: body must be a string or bytes, got %s", b.Name(), body.Type())
		}
	}

	ctx, cancel := context.WithTimeout(star.Context(thread), time.Duration(timeout))
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s %s: %w", b.Name(), method, url, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if headers != nil {
		for _, kv := range headers.Items() {
			k, ok1 := starlark.AsString(kv[0])
			v, ok2 := starlark.AsString(kv[1])
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s: headers must map strings to strings, got %s: %s", b.Name(), kv[0].Type(), kv[1].Type())
			}
			req.Header.Set(k, v)
		}
	}
	resp, err := threadClient(thread).Do(req)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
		resp.Body.Close()
		if err == nil && len(data) > maxBody {
			err = fmt.Errorf("response body over %d bytes", maxBody)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			// Say which deadline ended it: the op's (or the run's) or this request's.
			err = fmt.Errorf("%v: %w", context.Cause(ctx), err)
		}
		err = fmt.Errorf("%s %s %s: %w", b.Name(), method, url, err)
		if raise {
			return nil, err
		}
		kind := errkind.Unknown
		if errkind.IsDialError(err) {
			kind = errkind.NotSent
		}
		return response(0, nil, nil, err.Error(), kind), nil
	}
	return response(resp.StatusCode, resp.Header, data, "", ""), nil
}

// response builds the value http.request returns: status, headers (each
// name's values joined by ", "), body (a string), error ("" when an answer
// came), error_kind (errkind: "not-sent" when the connection was never
// made, "unknown" when the request may have been sent; "" when an answer
// came, whatever its status) and json(), which decodes the body.
func response(status int, h http.Header, body []byte, errMsg string, kind errkind.ErrorKind) starlark.Value {
	hd := starlark.NewDict(len(h))
	for k, vs := range h {
		_ = hd.SetKey(starlark.String(k), starlark.String(strings.Join(vs, ", ")))
	}
	hd.Freeze()
	text := starlark.String(body)
	decode := starlark.NewBuiltin("json", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
			return nil, err
		}
		v, err := starlark.Call(thread, json.Module.Members["decode"], starlark.Tuple{text}, nil)
		if err != nil {
			return nil, fmt.Errorf("response.json (HTTP %d): %w", status, err)
		}
		return v, nil
	})
	return starlarkstruct.FromStringDict(starlark.String("http.response"), starlark.StringDict{
		"status":     starlark.MakeInt(status),
		"headers":    hd,
		"body":       text,
		"error":      starlark.String(errMsg),
		"error_kind": starlark.String(kind),
		"json":       decode,
	})
}
