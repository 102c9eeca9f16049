package httpmod

import "github.com/faultline/faultline/star"

// The reference of the "http" module and its responses
// (docs/starlark.md); parameter names and defaults follow UnpackArgs.

func init() {
	star.Describe("http", "HTTP requests for clients written in Starlark (client.starlark).",
		"Requests share one pooled client per run, so a worker's keep-alive connection is reused from op to op. "+
			"A request ends at its timeout or when the calling thread's context ends, whichever is first.")
	star.Document("http", star.FuncDoc{Name: "request", Summary: "Sends one HTTP request and reads the whole response.",
		Doc: "A request that gets no answer (refused, reset, timed out) raises, unless raise_errors = False: then it returns a response " +
			"with status 0, error set and error_kind \"not-sent\" (the connection was never made: record fail) or \"unknown\" (the request may have been sent: record info).",
		Params: []star.Param{
			{Name: "method", Doc: `any method: "GET", "PUT", ... (case-insensitive)`},
			{Name: "url", Doc: "the URL"},
			{Name: "headers", Default: "{}", Doc: "request headers, strings to strings"},
			{Name: "body", Default: "None", Doc: "the body, a string or bytes", Example: `""`},
			{Name: "json", Default: "None", Doc: "a value sent as a JSON body (sets Content-Type); not with body", Example: `{"value": 1}`},
			{Name: "timeout", Default: `"5s"`, Doc: "the request's deadline (positive)"},
			{Name: "raise_errors", Default: "True", Doc: "raise when no answer came; False returns a response with status 0"},
		},
		Returns: "an http.response"})
	star.DocumentType(star.TypeDoc{Name: "http.response", Type: "struct", Receiver: "r", Summary: "The answer to http.request (a struct).",
		From: "http.request()",
		Fields: []star.Field{
			{Name: "status", Doc: "the HTTP status; 0 when no answer came (raise_errors = False)"},
			{Name: "headers", Doc: `a frozen dict from header name to value (several values joined by ", ")`},
			{Name: "body", Doc: "the body as a string (at most 16 MiB)"},
			{Name: "error", Doc: `why no answer came; "" when one did`},
			{Name: "error_kind", Doc: `"" when an answer came, whatever its status; "not-sent" when the connection was never made (the op failed); "unknown" when the request may have been sent (info)`},
		},
		Methods: []star.FuncDoc{{Name: "json", Summary: "The body decoded as JSON.", Returns: "the decoded value; an error naming the status when it is not JSON"}},
	})
}
