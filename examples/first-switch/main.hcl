# A first real site: two Nexus 5000 leaves and one host, the policy
# docs/tutorial.md takes to a real switch. leaf1 is the canary: plan and
# apply it alone (-target switch.leaf1) before the rest.
#
# Copy this directory, put your own addresses in the variables below (or
# pass -var leaf1_address=...), then, from that directory's parent:
#
#   ssh-keyscan 10.0.0.11 10.0.0.12 > mysite/known_hosts   # then compare the fingerprints
#   export NEXUS_PASSWORD='...'                            # never in a file
#   roce-plan -target switch.leaf1 -out leaf1.roce mysite

variable "leaf1_address" {
  description = "leaf1's SSH (management) address, host or host:port."
  type        = string
  default     = "10.0.0.11"
}

variable "leaf2_address" {
  description = "leaf2's SSH (management) address, host or host:port."
  type        = string
  default     = "10.0.0.12"
}

lossless "rocev2" {
  udp_port          = 4791
  dscp              = [26]
  priority          = 4
  mtu               = 9216
  bandwidth_percent = 40 # leaves room for the FCoE class's share (50% on the lab simulator)
}

credentials "nexus" {
  username     = "admin"
  password_env = "NEXUS_PASSWORD" # read when a switch is contacted, never saved
}

credentials "nodes" {
  username = "roce"
  key_file = "keys/roce_ed25519" # relative to this directory
}

switch "leaf1" {
  platform    = "nexus5000"
  address     = var.leaf1_address
  credentials = "nexus"
  known_hosts = "known_hosts" # the switches' SSH host keys: ssh-keyscan, then check
  interfaces  = ["Ethernet1/1-4"]
  fcoe        = true # keep the FCoE class on CoS 3
}

switch "leaf2" {
  platform    = "nexus5000"
  address     = var.leaf2_address
  credentials = "nexus"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet1/1-4"]
  fcoe        = true
}

host "node1" {
  address     = "node1.cluster"
  credentials = "nodes"
  switch      = "leaf1"
  mpi         = ["openmpi"]
  nic "ens1f0" {
    vlan    = 100
    address = "10.10.0.11/24"
    mtu     = 9000
  }
}
