package main

import (
	"regexp"
	"slices"
	"testing"
)

// validate contacts no device, so its -h offers exactly the flags loading a
// policy uses, and none of the device flags the plan itself has.
func TestValidateHelpListsOnlyItsFlags(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)`)
	flags := func(args ...string) []string {
		code, _, errs := runPlan(t, args...)
		if code != 0 {
			t.Fatalf("roce-plan %v: exit %d\n%s", args, code, errs)
		}
		var names []string
		for _, m := range flagLine.FindAllStringSubmatch(errs, -1) {
			names = append(names, m[1])
		}
		return names
	}
	if got, want := flags("validate", "-h"), []string{"no-color", "var", "var-file", "version"}; !slices.Equal(got, want) {
		t.Errorf("roce-plan validate -h lists %v, want %v", got, want)
	}
	plan := flags("-h")
	for _, f := range []string{"target", "timeout", "connect-timeout", "command-timeout", "parallelism", "log-level", "var", "version"} {
		if !slices.Contains(plan, f) {
			t.Errorf("roce-plan -h lost -%s: %v", f, plan)
		}
	}
	if code, _, errs := runPlan(t, "validate", "-target", "switch.a", "../../examples/cos"); code != 1 || !regexp.MustCompile(`flag provided but not defined: -target`).MatchString(errs) {
		t.Errorf("validate -target: exit %d, want 1 naming the flag\n%s", code, errs)
	}
}
