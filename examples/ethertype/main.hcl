# RoCE v1: the lossless class is every frame with Ethertype 0x8915.
#
# Nexus 5000s cannot classify on an Ethertype inside a QoS class-map with
# certainty (see docs/policy-language.md), so the switch recognises the class
# by the 802.1p priority the NIC writes into the VLAN tag. That is why every
# NIC below has a vlan: untagged frames carry no priority.

variable "roce_vlan" {
  type        = number
  default     = 100
  description = "VLAN that carries RoCE v1 between the hosts."
  validation {
    condition     = var.roce_vlan >= 2 && var.roce_vlan <= 4094
    error_message = "roce_vlan must be a VLAN ID from 2 to 4094 (1 is the native VLAN)."
  }
}

variable "subnet" {
  type    = string
  default = "10.20.0.0/24"
}

locals {
  hosts = {
    "gpu01" = { address = "192.0.2.11", index = 11 }
    "gpu02" = { address = "192.0.2.12", index = 12 }
    "gpu03" = { address = "192.0.2.13", index = 13 }
  }
}

credentials "nxos" {
  username     = "admin"
  password_env = "NXOS_PASSWORD"
}

credentials "hosts" {
  username = "roce"
  key_env  = "ROCE_SSH_KEY"
}

lossless "rocev1" {
  ethertype         = "0x8915" # HCL has no hex literals: quote it
  priority          = 3
  mtu               = 9216
  bandwidth_percent = 50
}

switch "n5k-a" {
  platform    = "nexus5000"
  address     = "192.0.2.1"
  credentials = "nxos"
  known_hosts = "known_hosts"
  interfaces  = ["Ethernet1/1-16"]
}

switch "n5k-b" {
  platform    = "nexus5000"
  address     = "192.0.2.2:22"
  credentials = "nxos"
  known_hosts = "known_hosts"
  interfaces  = ["Eth1/1-16", "Ethernet101/1/1-4"]
}

host "gpu" {
  for_each    = local.hosts
  address     = each.value.address
  credentials = "hosts"
  switch      = "n5k-a"

  nic "ens1f0" {
    rdma_device = "mlx5_0"
    vlan        = var.roce_vlan
    address     = format("%s/%d", cidrhost(var.subnet, each.value.index), 24)
    roce_mode   = "v1"
    mtu         = 9000
  }
}

probe {
  duration           = "10s"
  threshold_fraction = 0.9
}
