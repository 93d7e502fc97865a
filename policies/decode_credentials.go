package policies

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

var credentialsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "username", Required: true}, {Name: "password_env"}, {Name: "password_file"}, {Name: "key_file"}, {Name: "key_env"},
	// Accepted by the schema only to reject them with a useful message.
	{Name: "password"}, {Name: "key"},
}}

func (l *loader) decodeCredentials(b *hcl.Block, ctx *hcl.EvalContext, f *Fabric) {
	name := b.Labels[0]
	what := fmt.Sprintf("credentials %q", name)
	if prev, ok := f.Credentials[name]; ok {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Duplicate credentials",
			fmt.Sprintf("%s is already defined at %s; rename or remove one.", what, prev.DeclRange)))
		return
	}
	content, diags := b.Body.Content(credentialsSchema)
	l.diags = append(l.diags, diags...)
	if diags.HasErrors() {
		return
	}
	r := newReader(what, content.Attributes, ctx, &l.diags)
	r.allowSensitive = true // names of secrets, never printed as values
	if a, ok := content.Attributes["password"]; ok {
		// Never evaluate it: the value must not reach any message or log.
		l.diags = append(l.diags, errorDiag(a.Range, "Literal password in policy",
			fmt.Sprintf("%s: a password must not be written in the policy. Put it in an environment variable and use password_env, or in a file and use password_file.", what)))
	}
	if a, ok := content.Attributes["key"]; ok {
		l.diags = append(l.diags, errorDiag(a.Range, "Literal private key in policy",
			fmt.Sprintf("%s: a private key must not be written in the policy. Put it in a file and use key_file, or in an environment variable and use key_env.", what)))
	}
	c := &Credentials{Name: name, DeclRange: b.DefRange}
	r.str("username", &c.Username)
	r.str("password_env", &c.PasswordEnv)
	if r.str("password_file", &c.PasswordFile) {
		c.PasswordFile = l.path(c.PasswordFile)
	}
	if r.str("key_file", &c.KeyFile) {
		c.KeyFile = l.path(c.KeyFile)
	}
	r.str("key_env", &c.KeyEnv)
	if c.PasswordEnv != "" && c.PasswordFile != "" {
		r.attrError("password_file", "Two password sources",
			fmt.Sprintf("%s sets password_env and password_file; keep one.", what))
	}
	if c.KeyEnv != "" && c.KeyFile != "" {
		r.attrError("key_file", "Two key sources", fmt.Sprintf("%s sets key_env and key_file; keep one.", what))
	}
	if c.PasswordEnv == "" && c.PasswordFile == "" && c.KeyEnv == "" && c.KeyFile == "" && !r.has("password") && !r.has("key") {
		l.diags = append(l.diags, errorDiag(b.DefRange, "Credentials without a secret",
			fmt.Sprintf("%s names no secret; set password_env or password_file, and/or key_file or key_env.", what)))
	}
	l.record(c, r)
	f.Credentials[name] = c
}
