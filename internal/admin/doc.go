// Package admin implements godwit's operator interface: an HTTP server
// with a JSON API over a running crawl (status, seeds, per-host policy,
// blocking, the revisit share, pause and resume), the embedded
// dashboard, /metrics and /debug/pprof, all behind one set of checks.
//
// The crawl is reached only through Backend, which cmd/godwit implements;
// this package imports no other adapter.
//
// # Who may talk to the server
//
// Every request, whatever its path, passes these checks in order:
//
//  1. Host: the Host header must name the server as it is bound
//     (Options.Addr, or the listener's address), localhost, 127.0.0.1 or
//     [::1] on the same port, or one of Options.Hosts; a bind to all
//     interfaces also accepts the machine's interface addresses. Anything
//     else is 403: a DNS-rebinding page cannot reach the API through a
//     name it controls.
//  2. Origin: a request with an Origin header must come from
//     http://<an allowed Host>; a state-changing request (POST, PUT,
//     DELETE) must have no Origin (a command-line client) or that one,
//     and a Sec-Fetch-Site other than same-origin or none is refused.
//     Otherwise 403: no cross-site requests, not even "simple" ones.
//  3. Token: when Options.Token is set (it must be when the server is
//     bound to a non-loopback address), the request must carry it as
//     "Authorization: Bearer <token>" or carry the session cookie.
//     Otherwise 401. Comparisons are constant-time.
//
// The session cookie is how a browser gets in: the operator opens
// /?token=<token> once; the server checks the token, sets the cookie
// "godwit_admin" (HttpOnly, SameSite=Strict, Path=/, for 30 days) and
// redirects to / so that the token leaves the address bar. The cookie
// holds an HMAC of the token, not the token, and is accepted wherever the
// bearer token is; changing the token invalidates every cookie. ?token= is
// honoured on GET / only.
//
// State-changing requests with a body must be Content-Type
// application/json; bodies are limited to 1 MiB and unknown JSON fields
// are rejected. Every error is one envelope, ErrorBody.
//
// # Answers
//
// GET endpoints answer the JSON types of api.go (GET /api/hosts a JSON
// array of Host, never null; GET /api/ip-groups IPGroups, from a Backend
// that is also an IPBackend, sorted and cut to its limit by the server;
// GET /api/cluster from a ClusterBackend); POST /api/seeds answers SeedsResult; the
// actions (policy PUT and DELETE, block, unblock, recrawl PUT, pause,
// resume) answer 204 No Content, and the new state is read with a GET. Every route is
// described by GET /api/openapi.json (openapi.json, checked against the
// mux by a test).
//
// A host lookup carrying ForwardedHeader (a cluster node asking the
// node that schedules the host) reaches Backend.Host with the forwarding
// node in its context (Forwarded), so the node asked answers from its
// own state and forwards no further.
//
// # Client
//
// Client is the API's client side (godwit status, hosts, seeds add,
// pause, resume, recrawl, urls): Do sends one request and returns the
// answer's body, an *APIError for an error answer (with ErrorBody's code
// and message when the server sent one), or an error saying the server is
// unreachable.
//
// # Concurrency and lifetime
//
// A Server and a Client are safe for concurrent use. New starts nothing; Serve runs
// until its context ends, then shuts down gracefully (in-flight requests
// get a few seconds to finish) and returns.
//
// Importing net/http/pprof registers its handlers on
// http.DefaultServeMux as a side effect; godwit never serves that mux.
// The profiles are reachable only through this server's checks.
package admin
