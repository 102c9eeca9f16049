package control

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/star"

	"github.com/faultline/faultline/control"
)

// httpGet is control.http_get(url, timeout="1s") -> struct(status, body,
// error): a GET from the controller, for recipes that poll a node's status
// or health endpoint without depending on curl being installed. A failed
// request is not raised (recipes poll until ready): status is 0 and error
// says why.
func httpGet(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var url string
	timeout := star.Duration(time.Second)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "url", &url, "timeout?", &timeout); err != nil {
		return nil, err
	}
	result := func(status int, body, err string) starlark.Value {
		return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
			"status": starlark.MakeInt(status), "body": starlark.String(body), "error": starlark.String(err)})
	}
	ctx := star.Context(thread)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	c := http.Client{Timeout: time.Duration(timeout)}
	resp, err := c.Do(req)
	if err != nil {
		return result(0, "", err.Error()), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, control.MaxOutput))
	if err != nil {
		return result(0, "", err.Error()), nil
	}
	return result(resp.StatusCode, string(body), ""), nil
}

// sleep is control.sleep(duration): recipes wait between polls.
func sleep(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d star.Duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "duration", &d); err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(d))
	defer t.Stop()
	select {
	case <-t.C:
		return starlark.None, nil
	case <-star.Context(thread).Done():
		return nil, fmt.Errorf("%s: %w", b.Name(), star.Context(thread).Err())
	}
}
