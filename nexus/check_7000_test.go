package nexus

import (
	"strings"
	"testing"
)

// On a Nexus 7000 a network-qos policy exists only as a default-nq-*
// template or a copy of one, and a copy has its template's classes and no
// others. Check judges a running-config's network-qos policies by that,
// as the switch's editor does (nxsim refuses the same lines).
func TestCheck7000NetworkQoSCopies(t *testing.T) {
	const sys = "system qos\n  service-policy type network-qos %s\n"
	tests := []struct {
		name, text string
		lines      []int  // the lines refused
		want       string // in the first error
	}{
		{"copy with its template's classes", "policy-map type network-qos pp-nq-7e\n" +
			"  class type network-qos c-nq-7e-drop\n    mtu 1500\n" +
			"  class type network-qos c-nq-7e-ndrop-fcoe\n    pause no-drop\n    mtu 2112\n" +
			strings.Replace(sys, "%s", "pp-nq-7e", 1), nil, ""},
		{"the template itself", "policy-map type network-qos default-nq-6e-policy\n" +
			"  class type network-qos c-nq-6e-ndrop\n    mtu 1500\n", nil, ""},
		{"a class the copy's template does not have", "policy-map type network-qos pp-nq-7e\n" +
			"  class type network-qos c-nq-7e-drop\n    mtu 1500\n" +
			"  class type network-qos nope\n    pause no-drop\n", []int{4}, "class nope is not part of template copy pp-nq-7e"},
		{"another template's class in a copy", "policy-map type network-qos pp-nq-7e\n" +
			"  class type network-qos c-nq-4e-ndrop\n", []int{2}, "not part of template copy"},
		{"neither a template nor a copy", "policy-map type network-qos roce-nq\n" +
			"  class type network-qos c-nq-7e-drop\n    mtu 9216\n" +
			strings.Replace(sys, "%s", "roce-nq", 1) +
			"policy-map type network-qos roce-nq\n  class type network-qos x\n",
			[]int{1}, "network-qos policy-map roce-nq is neither a template (default-nq-8e-policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Check(tt.text, testPlatform(t, "nexus7000"), testModules7000)
			if c == nil {
				t.Fatalf("Parse refused it: %v", err)
			}
			var got []int
			for _, le := range lineErrors(t, err) {
				got = append(got, le.Line)
			}
			if len(got) != len(tt.lines) {
				t.Fatalf("refused lines %v, want %v (%v)", got, tt.lines, err)
			}
			for i := range got {
				if got[i] != tt.lines[i] {
					t.Fatalf("refused lines %v, want %v (%v)", got, tt.lines, err)
				}
			}
			if tt.want != "" && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// The same class line Check refuses is what the switch's editor refuses
// after a real `qos copy`: Check and the simulator agree.
func TestCheck7000AgreesWithEditorOnCopies(t *testing.T) {
	p := testPlatform(t, "nexus7000")
	for _, class := range []string{"c-nq-7e-drop", "c-nq-7e-ndrop-fcoe", "nope", "c-nq-8e"} {
		e := NewEditor(&Config{}, p, testModules7000)
		for _, l := range []string{"qos copy policy-map type network-qos default-nq-7e-policy prefix pp-", "policy-map type network-qos pp-nq-7e"} {
			if err := e.Line(l); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
		}
		editorErr := e.Line("class type network-qos " + class)
		_, checkErr := Check("policy-map type network-qos pp-nq-7e\n  class type network-qos "+class+"\n", p, testModules7000)
		if (editorErr == nil) != (checkErr == nil) {
			t.Errorf("class %s: editor says %v, Check says %v", class, editorErr, checkErr)
		}
	}
}
