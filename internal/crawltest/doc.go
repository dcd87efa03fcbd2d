// Package crawltest provides in-memory fakes of the core's interfaces for
// tests: a Fetcher that serves a table of canned responses and records
// every request, and an Archive that records what it was given.
//
// Both fakes are safe for concurrent use. They are for tests only; nothing
// outside _test.go files and cmd/godwit's tests imports this package.
package crawltest
