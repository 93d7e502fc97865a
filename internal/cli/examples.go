package cli

// Examples is the "Examples:" section -h prints for a command (the flag
// set's name: "roce-plan", "roce-plan validate", …), or "" for none. They
// use the lab so they can be tried at once (roce-lab up -d examples/lab);
// e2e/binaries_test.go runs each one against it, in this order: plan,
// apply, verify; a comment "# exit N" names a non-zero exit.
func Examples(command string) string {
	switch command {
	case "roce-plan":
		return `  roce-plan -var-file examples/lab/.lab/lab.vars examples/lab
  roce-plan -var-file examples/lab/.lab/lab.vars -out plan.roce examples/lab
  roce-plan -var-file examples/lab/.lab/lab.vars -markdown examples/lab > plan.md
  roce-plan -var-file examples/lab/.lab/lab.vars -detailed-exitcode -target switch.n7k-1 examples/lab   # exit 2: changes to apply
`
	case "roce-plan validate":
		return `  roce-plan validate examples/cos
  roce-plan validate -var-file examples/lab/.lab/lab.vars examples/lab
`
	case "roce-plan fmt":
		return `  roce-plan fmt -check examples/cos
`
	case "roce-apply":
		return `  roce-apply -var-file examples/lab/.lab/lab.vars plan.roce
  roce-apply -var-file examples/lab/.lab/lab.vars -auto-approve -target switch.n5k-1 examples/lab
  roce-apply -var-file examples/lab/.lab/lab.vars -recover examples/lab
`
	case "roce-verify":
		return `  roce-verify -var-file examples/lab/.lab/lab.vars examples/lab
  roce-verify -var-file examples/lab/.lab/lab.vars -record-baseline base.json examples/lab
  roce-verify -var-file examples/lab/.lab/lab.vars -baseline base.json examples/lab
`
	}
	return ""
}
