# Lossless by CoS: the hosts mark RoCE with 802.1p priority 4 in the VLAN tag
# and the switches make CoS 4 no-drop.
#
# The Nexus 5000 here also carries FCoE, which keeps CoS 3, so the RoCE class
# sits on CoS 4. Putting it on CoS 3 would be rejected while fcoe = true.

variable "roce_cos" {
  type    = number
  default = 4
  validation {
    condition     = var.roce_cos != 3
    error_message = "CoS 3 belongs to FCoE on these switches; pick another CoS."
  }
}

variable "vlan" {
  type    = number
  default = 200
}

credentials "nxos" {
  username      = "admin"
  password_file = "secrets/nxos-password" # one line, kept out of git
}

credentials "hosts" {
  username = "roce"
  key_env  = "ROCE_SSH_KEY"
}

lossless "roce" {
  cos               = var.roce_cos # priority defaults to the lowest matched CoS
  mtu               = 9216
  bandwidth_percent = 60
}

switch "n5k-1" {
  platform    = "nexus5000"
  address     = "10.1.0.1"
  credentials = "nxos"
  known_hosts = "known_hosts"
  fcoe        = true
  interfaces  = ["Ethernet1/1-24", "Ethernet2/1-4"]
}

switch "n7k-core" {
  platform    = "nexus7000"
  address     = "10.1.0.2"
  credentials = "nxos"
  known_hosts = "known_hosts"
  vdc         = "dc1"
  interfaces  = ["Ethernet4/1-8"]
}

host "compute" {
  for_each = {
    "cn01" = "10.200.0.11/24"
    "cn02" = "10.200.0.12/24"
    "cn03" = "10.200.0.13/24"
    "cn04" = "10.200.0.14/24"
  }
  address     = each.key
  credentials = "hosts"
  switch      = "n5k-1"
  mpi         = ["openmpi", "ucx"]

  nic "enp65s0f0" {
    vlan    = var.vlan
    address = each.value
    mtu     = 9000
  }
}

probe {
  tool           = "ib_write_bw"
  duration       = "10s"
  message_size   = 1048576
  qps            = 4
  threshold_gbps = 80
}
