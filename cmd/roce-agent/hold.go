//go:build !rocetesthooks

package main

// testHold is the kill tests' pause hook. The production agent has none:
// the hook exists only in a binary built with the rocetesthooks tag
// (hold_testhooks.go), so no request, policy or environment can stop a
// real agent half-way through an apply.
func testHold() func(string) { return nil }
