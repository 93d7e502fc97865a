# The lab fabric. `roce-lab up examples/lab` starts a simulator for every
# switch and a network namespace for every host below, then writes
# .lab/lab.vars with where they listen. Plan against it with:
#
#   roce-plan -var-file examples/lab/.lab/lab.vars examples/lab
#
# One RoCE v2 class (UDP 4791, DSCP 26) carried on priority 4 end to end:
# the Nexus 5000 keeps its FCoE class on CoS 3, the Nexus 7000 matches the
# class by CoS 4 (its templates match CoS only), and the gNMI switches pause
# priority 4.

variable "lab_addresses" {
  description = "Where each simulated switch listens; written by roce-lab up."
  type        = map(string)
  default     = {}
}

variable "lab_hosts" {
  description = "Whether roce-lab started the hosts; written by roce-lab up. Off by default so the lab hosts never exist without a running lab."
  type        = bool
  default     = false
}

variable "lab_netns" {
  description = "The network namespace of each lab host; written by roce-lab up."
  type        = map(string)
  default     = {}
}

locals {
  # host => the switch it hangs off, and its RoCE address on VLAN 100.
  hosts = {
    h1 = { switch = "n5k-1", ip = "10.10.0.11/24" }
    h2 = { switch = "n7k-1", ip = "10.10.0.12/24" }
    h3 = { switch = "eos-1", ip = "10.10.0.13/24" }
    h4 = { switch = "sonic-1", ip = "10.10.0.14/24" }
  }
}

credentials "lab" {
  username      = "admin"
  password_file = ".lab/password"
}

lossless "rocev2" {
  udp_port          = 4791
  dscp              = [26]
  priority          = 4
  mtu               = 9214 # fits every lab platform (Arista takes at most 9214)
  bandwidth_percent = 50
}

switch "n5k-1" {
  platform    = "nexus5000"
  address     = lookup(var.lab_addresses, "n5k-1", "127.0.0.1:2201")
  credentials = "lab"
  known_hosts = ".lab/known_hosts"
  interfaces  = ["Ethernet1/1-4"]
  fcoe        = true
}

switch "n7k-1" {
  platform    = "nexus7000"
  address     = lookup(var.lab_addresses, "n7k-1", "127.0.0.1:2202")
  credentials = "lab"
  known_hosts = ".lab/known_hosts"
  # Slot 3 is an F1 module (PFC-capable); slot 4 is M1 and is not managed.
  # It runs NX-OS 5.1(3): `roce-lab upgrade switch.n7k-1 "5.1(5)"` replays the
  # upgrade that took RoCE from 9.91 Gb/s to 30 Mb/s (docs/lab-upgrades.md).
  interfaces = ["Ethernet3/1-4"]
}

# One gNMI switch per vendor profile.
switch "gnmi" {
  for_each = {
    "eos-1"   = { profile = "arista", port = 6030, interfaces = ["Ethernet1", "Ethernet2"] }
    "sonic-1" = { profile = "sonic", port = 6031, interfaces = ["Ethernet0", "Ethernet4"] }
    "srl-1"   = { profile = "srlinux", port = 6032, interfaces = ["ethernet-1/1", "ethernet-1/2"] }
  }

  platform    = "gnmi"
  profile     = each.value.profile
  address     = lookup(var.lab_addresses, each.key, "127.0.0.1:${each.value.port}")
  credentials = "lab"
  interfaces  = each.value.interfaces
  tls {
    ca_file     = ".lab/pki/ca.pem" # written by roce-lab up
    server_name = "localhost"
  }
  # Targets advertise no commit-confirmed support in Capabilities, so it is
  # turned on per switch; the lab's simulators support it.
  gnmi {
    commit_confirm = "on"
  }
}

host "lab" {
  # The hosts exist only while roce-lab runs them (in network namespaces as
  # root, fully emulated otherwise), so this policy can never reach this
  # machine's own interfaces: each host's tree names the namespace roce-lab
  # up made for it, and a var file that empties or changes lab_netns makes
  # roce-plan and roce-apply refuse the host (docs/lab.md).
  for_each = { for name, h in local.hosts : name => h if var.lab_hosts }

  local  = true
  netns  = lookup(var.lab_netns, each.key, "")
  root   = ".lab/hosts/${each.key}"
  switch = each.value.switch
  mpi    = ["openmpi", "nccl"]

  nic "eth0" {
    rdma_device = "mlx5_0"
    vlan        = 100
    address     = each.value.ip
    roce_mode   = "v2"
    mtu         = 9000
  }
}

probe {
  tool               = "ib_write_bw"
  duration           = "5s"
  threshold_fraction = 0.9
}

rollout {
  canary      = 1
  batch_size  = 4
  parallelism = 8
}
