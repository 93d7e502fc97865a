package policies

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// TransportWarnings returns one sentence per way the policy turned off the
// security of this switch's management session, each naming the switch:
// gNMI without TLS, a TLS certificate not verified, an SSH host key not
// verified. Each is an explicit setting in the policy (never the default,
// never from the environment); roce repeats it on every validate, plan and
// apply, and providers add it to the target's plan so a pull-request
// comment shows it too. Empty when the session is verified.
func (sw *Switch) TransportWarnings() []string {
	var out []string
	addr := "switch." + sw.Name
	if sw.Platform == PlatformGNMI && sw.TLS != nil {
		if sw.TLS.Plaintext {
			out = append(out, fmt.Sprintf("%s: gNMI WITHOUT TLS (tls { plaintext = true } in the policy): the password and every change travel in clear, and anyone on the path can read or alter them; use it in a lab only", addr))
		}
		if sw.TLS.InsecureSkipVerify {
			out = append(out, fmt.Sprintf("%s: TLS certificate NOT verified (tls { insecure_skip_verify = true } in the policy): anyone on the path can impersonate this switch and receive its password; use it in a lab only", addr))
		}
	}
	if sw.Platform != PlatformGNMI && sw.InsecureSkipVerify {
		out = append(out, fmt.Sprintf("%s: SSH host key NOT verified (insecure_skip_verify = true in the policy): anyone on the path can impersonate this switch and receive its password; use it in a lab only", addr))
	}
	return out
}

// TransportWarnings returns the TransportWarnings of every switch, in policy
// order.
func (f *Fabric) TransportWarnings() []string {
	var out []string
	for _, sw := range f.Switches {
		out = append(out, sw.TransportWarnings()...)
	}
	return out
}

// warnTransport adds a warning diagnostic at the setting for every switch
// whose session is not verified, so every CLI that loads the policy
// (validate, plan, apply, verify) prints it.
func (l *loader) warnTransport(f *Fabric) {
	for _, sw := range f.Switches {
		ws := sw.TransportWarnings()
		if len(ws) == 0 {
			continue
		}
		at := func(obj any, name string) hcl.Range {
			if obj == nil {
				return sw.DeclRange
			}
			return l.at(obj, name, sw.DeclRange)
		}
		var rngs []hcl.Range
		if sw.Platform == PlatformGNMI {
			if sw.TLS.Plaintext {
				rngs = append(rngs, at(sw.TLS, "plaintext"))
			}
			if sw.TLS.InsecureSkipVerify {
				rngs = append(rngs, at(sw.TLS, "insecure_skip_verify"))
			}
		} else {
			rngs = append(rngs, at(sw, "insecure_skip_verify"))
		}
		for i, w := range ws {
			summary := "Transport security off"
			l.diags = append(l.diags, warningDiag(rngs[i], summary, w+"."))
		}
	}
}
