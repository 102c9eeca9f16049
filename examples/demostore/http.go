package demostore

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/raft"
)

// API bodies. A pointer distinguishes null (absent key) from 0.
type (
	valueBody struct {
		Value *int64 `json:"value"`
	}
	casBody struct {
		From *int64 `json:"from"`
		To   *int64 `json:"to"`
	}
	errorBody struct {
		Error  string `json:"error"`
		Leader string `json:"leader,omitempty"`
	}
	statusBody struct {
		ID           string `json:"id"`
		State        string `json:"state"`
		Leader       string `json:"leader"`
		AppliedIndex uint64 `json:"applied_index"`
	}
)

// maxBody bounds a request body; a valid one is a few dozen bytes.
const maxBody = 4 << 10

// routes is the node's HTTP API.
func (n *node) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kv/{key}", n.handleRead)
	mux.HandleFunc("PUT /kv/{key}", n.handleWrite)
	mux.HandleFunc("POST /kv/{key}/cas", n.handleCAS)
	mux.HandleFunc("GET /status", n.handleStatus)
	return mux
}

func (n *node) handleRead(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if n.bug == bugStaleReads {
		v, ok := n.fsm.local(key) // the bug: no leader check, no log
		writeValue(w, http.StatusOK, v, ok)
		return
	}
	if !n.leading(w) {
		return
	}
	if res, ok := n.propose(w, r, command{op: opRead, key: key}); ok {
		writeValue(w, http.StatusOK, res.value, res.present)
	}
}

func (n *node) handleWrite(w http.ResponseWriter, r *http.Request) {
	var body valueBody
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Value == nil {
		writeJSON(w, http.StatusBadRequest, errorBody{Error: `body needs an integer "value"`})
		return
	}
	if !n.leading(w) {
		return
	}
	if _, ok := n.propose(w, r, command{op: opWrite, key: r.PathValue("key"), to: *body.Value}); ok {
		writeValue(w, http.StatusOK, *body.Value, true)
	}
}

func (n *node) handleCAS(w http.ResponseWriter, r *http.Request) {
	var body casBody
	if !decodeBody(w, r, &body) {
		return
	}
	if body.From == nil || body.To == nil {
		writeJSON(w, http.StatusBadRequest, errorBody{Error: `body needs integers "from" and "to"`})
		return
	}
	if !n.leading(w) {
		return
	}
	key := r.PathValue("key")
	c := command{op: opCAS, key: key, from: *body.From, to: *body.To}
	if n.bug == bugUnsafeCAS {
		// The bug: compare against this replica's possibly lagging state,
		// then replicate a blind write; two racing cas both "succeed".
		if cur, ok := n.fsm.local(key); !ok || cur != c.from {
			writeValue(w, http.StatusConflict, cur, ok)
			return
		}
		c.op = opWrite
	}
	res, ok := n.propose(w, r, c)
	if !ok {
		return
	}
	if !res.ok {
		writeValue(w, http.StatusConflict, res.value, res.present)
		return
	}
	writeValue(w, http.StatusOK, res.value, true)
}

func (n *node) handleStatus(w http.ResponseWriter, _ *http.Request) {
	_, leader := n.raft.LeaderWithID()
	writeJSON(w, http.StatusOK, statusBody{
		ID:           n.id,
		State:        strings.ToLower(n.raft.State().String()),
		Leader:       string(leader),
		AppliedIndex: n.raft.AppliedIndex(),
	})
}

// leading answers 503 with a leader hint unless this node is the leader.
// It runs before anything takes effect, so the client may retry elsewhere.
func (n *node) leading(w http.ResponseWriter) bool {
	if n.raft.State() == raft.Leader {
		return true
	}
	n.notLeader(w)
	return false
}

func (n *node) notLeader(w http.ResponseWriter) {
	_, leader := n.raft.LeaderWithID()
	writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "not leader", Leader: string(leader)})
}

// propose submits c to the log and waits for its result. Otherwise it
// answers the request itself: 503 when the entry surely never entered the
// log, 504 "indeterminate" when it may still commit.
func (n *node) propose(w http.ResponseWriter, r *http.Request, c command) (result, bool) {
	timer := time.NewTimer(n.apply)
	defer timer.Stop()
	f := n.raft.Apply(c.encode(), n.apply)
	// ApplyFuture only offers a blocking Error; wait for it aside so the
	// request's deadline holds even if raft never answers.
	done := make(chan error, 1)
	go func() { done <- f.Error() }()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		err = fmt.Errorf("not applied within %s", n.apply)
	case <-r.Context().Done():
		err = fmt.Errorf("client went away: %w", r.Context().Err())
	}
	switch {
	case err == nil:
	case errors.Is(err, raft.ErrNotLeader):
		n.notLeader(w) // refused before it was appended
		return result{}, false
	case errors.Is(err, raft.ErrEnqueueTimeout):
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: "busy: " + err.Error()})
		return result{}, false
	default:
		writeJSON(w, http.StatusGatewayTimeout, errorBody{Error: "indeterminate: " + err.Error()})
		return result{}, false
	}
	res, _ := f.Response().(result)
	if res.err != nil {
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "apply: " + res.err.Error()})
		return result{}, false
	}
	return res, true
}

// decodeBody parses a small JSON request body into v, answering 400 if it
// cannot.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "bad body: " + err.Error()})
		return false
	}
	return true
}

// writeValue answers {"value": v}, or {"value": null} when !present.
func writeValue(w http.ResponseWriter, code int, v int64, present bool) {
	var body valueBody
	if present {
		body.Value = &v
	}
	writeJSON(w, code, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client may be gone; nothing to do
}
