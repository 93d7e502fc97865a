package scale

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/crypto/ssh"
)

// policyHCL is the benchmark's policy: every switch and host comes from a
// for_each over locals built from the counts and the address map in
// scale.vars, so loading it exercises the HCL evaluator at full size.
const policyHCL = `# Written by the scale benchmark (internal/scale). Hosts are lab roots
# whose kernel interfaces are all emulated; switches are simulators on
# 127.0.0.1 (addresses in scale.vars).

variable "addresses" {
  type    = map(string)
  default = {}
}

variable "counts" {
  type = object({ n5k = number, n7k = number, eos = number, sonic = number, srl = number, hosts = number })
}

locals {
  n5k = [for i in range(var.counts.n5k) : format("n5k-%04d", i)]
  n7k = [for i in range(var.counts.n7k) : format("n7k-%04d", i)]
  gnmi = merge(
    { for i in range(var.counts.eos) : format("eos-%04d", i) => { profile = "arista", interfaces = ["Ethernet1", "Ethernet2"] } },
    { for i in range(var.counts.sonic) : format("sonic-%04d", i) => { profile = "sonic", interfaces = ["Ethernet0", "Ethernet4"] } },
    { for i in range(var.counts.srl) : format("srl-%04d", i) => { profile = "srlinux", interfaces = ["ethernet-1/1", "ethernet-1/2"] } },
  )
  switches = concat(local.n5k, local.n7k, sort(keys(local.gnmi)))
  hosts = {
    for i in range(var.counts.hosts) : format("h%05d", i) => {
      switch = local.switches[i % length(local.switches)]
      ip     = format("%s/16", cidrhost("10.64.0.0/16", i + 10))
    }
  }
}

credentials "lab" {
  username      = "admin"
  password_file = "password"
}

lossless "rocev2" {
  udp_port          = 4791
  dscp              = [26]
  priority          = 4
  mtu               = 9214
  bandwidth_percent = 50
}

switch "n5k" {
  for_each    = toset(local.n5k)
  platform    = "nexus5000"
  address     = var.addresses[each.key]
  credentials = "lab"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet1/1-4"]
  fcoe        = true
}

switch "n7k" {
  for_each    = toset(local.n7k)
  platform    = "nexus7000"
  address     = var.addresses[each.key]
  credentials = "lab"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet3/1-4"]
}

switch "gnmi" {
  for_each    = local.gnmi
  platform    = "gnmi"
  profile     = each.value.profile
  address     = var.addresses[each.key]
  credentials = "lab"
  interfaces  = each.value.interfaces
  tls {
    ca_file     = "pki/ca.pem"
    server_name = "localhost"
  }
}

host "h" {
  for_each = local.hosts
  local    = true
  root     = "hosts/${each.key}"
  switch   = each.value.switch
  mpi      = ["openmpi", "nccl"]

  nic "eth0" {
    rdma_device = "mlx5_0"
    vlan        = 100
    address     = each.value.ip
    roce_mode   = "v2"
    mtu         = 9000
  }
}
`

// writePolicy writes main.hcl and scale.vars into dir and returns the
// var file's path.
func writePolicy(dir string, mix Mix, addrs map[string]string) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(policyHCL), 0o644); err != nil {
		return "", fmt.Errorf("writing the policy: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "counts = { n5k = %d, n7k = %d, eos = %d, sonic = %d, srl = %d, hosts = %d }\n",
		mix[KindNexus5000], mix[KindNexus7000], mix[KindArista], mix[KindSONiC], mix[KindSRLinux], mix[KindHost])
	names := make([]string, 0, len(addrs))
	for n := range addrs {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("addresses = {\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %q = %q\n", n, addrs[n])
	}
	b.WriteString("}\n")
	p := filepath.Join(dir, "scale.vars")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		return "", fmt.Errorf("writing the var file: %w", err)
	}
	return p, nil
}

func newHostKey() (ssh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating an SSH host key: %w", err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("SSH host key: %w", err)
	}
	return s, nil
}
