package nxos

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/rocefabric/roce/policies"
)

// authRefused reports whether err is the SSH client's "the server took
// none of our credentials" (x/crypto/ssh: "unable to authenticate").
func authRefused(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unable to authenticate")
}

// withNextStep appends what the user should do next to a connection error
// whose cause a person has to fix: credentials the switch refused, a port
// nothing listens on, an address that does not answer. The
// secret itself is never named, only where roce took it from.
func withNextStep(fab *policies.Fabric, sw *policies.Switch, err error) error {
	switch {
	case authRefused(err):
		return fmt.Errorf("%w; the switch refused the login: %s", err, credentialsHint(fab, sw))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w; nothing accepts SSH there: check the switch's address and port in the policy (SSH's default is 22) and that SSH is enabled on the switch", err)
	case errors.Is(err, errNoAnswer):
		return fmt.Errorf("%w; check the address in the policy, that the switch is up, and that no firewall drops SSH between here and the switch (or raise -connect-timeout)", err)
	}
	return err
}

// credentialsHint names the credentials block and where its secret comes
// from, so the user knows which variable or file to check.
func credentialsHint(fab *policies.Fabric, sw *policies.Switch) string {
	name := sw.Credentials
	var c *policies.Credentials
	if fab != nil {
		c = fab.Credentials[name]
	}
	if c == nil {
		return fmt.Sprintf("check credentials %q", name)
	}
	var from []string
	if c.PasswordEnv != "" {
		from = append(from, "the password in $"+c.PasswordEnv)
	}
	if c.PasswordFile != "" {
		from = append(from, "the password in "+c.PasswordFile)
	}
	if c.KeyEnv != "" {
		from = append(from, "the key in $"+c.KeyEnv)
	}
	if c.KeyFile != "" {
		from = append(from, "the key in "+c.KeyFile)
	}
	src := "its password or key"
	if len(from) > 0 {
		src = strings.Join(from, " or ")
	}
	return fmt.Sprintf("check credentials %q (user %q, %s) against the switch's local or AAA accounts", name, c.Username, src)
}
