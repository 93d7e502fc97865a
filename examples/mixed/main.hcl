# A mixed fabric: Nexus 5000 access switches that keep FCoE, a Nexus 7000
# core, and gNMI leaves from three vendors, all carrying one RoCE v2 class,
# plus hosts running MPI and NCCL.
#
# Why DSCP: it is the one match every platform here can express. The
# Nexus 7000 builds network-qos from CoS-only templates, so it recognises
# the class by the 802.1p priority in the VLAN tag: every NIC has a VLAN.
# Why priority 4: the Nexus 5000s keep FCoE, which owns CoS 3.

variable "roce_vlan" {
  type    = number
  default = 300
}

variable "class_mtu" {
  type    = number
  default = 9100 # within every platform's range (SR Linux up to 9412, Arista 9214)
  validation {
    condition     = var.class_mtu >= 4200
    error_message = "class_mtu below 4200 cannot carry RoCE path MTU 4096."
  }
}

variable "gnmi_ca" {
  type    = string
  default = "pki/fabric-ca.pem"
}

locals {
  gnmi_leaves = {
    "arista-leaf" = { profile = "arista", address = "172.16.0.21:6030", ports = ["Ethernet1/1-8"] }
    "sonic-leaf"  = { profile = "sonic", address = "172.16.0.22:8080", ports = ["Ethernet0", "Ethernet4"] }
    "srl-leaf"    = { profile = "srlinux", address = "172.16.0.23:57400", ports = ["ethernet-1/1-8"] }
  }
  subnet = "10.30.0.0/24"
  hosts = {
    "mpi01" = { leaf = "n5k-access", n = 11, stacks = ["mvapich2", "openmpi"] }
    "mpi02" = { leaf = "n5k-access", n = 12, stacks = ["mvapich2", "openmpi"] }
    "gpu01" = { leaf = "arista-leaf", n = 21, stacks = ["nccl", "ucx"] }
    "gpu02" = { leaf = "sonic-leaf", n = 22, stacks = ["nccl", "ucx"] }
    "gpu03" = { leaf = "srl-leaf", n = 23, stacks = ["nccl", "ucx"] }
  }
}

credentials "nxos" {
  username     = "admin"
  password_env = "NXOS_PASSWORD"
}

credentials "gnmi" {
  username      = "gnmi"
  password_file = "secrets/gnmi-password"
}

credentials "hosts" {
  username = "roce"
  key_file = "secrets/id_ed25519"
}

lossless "roce" {
  dscp              = [24, 26]
  priority          = 4
  mtu               = var.class_mtu
  bandwidth_percent = 50
}

switch "n5k-access" {
  platform    = "nexus5000"
  address     = "172.16.0.11"
  credentials = "nxos"
  known_hosts = "known_hosts"
  fcoe        = true
  interfaces  = ["Ethernet1/1-32"]
}

switch "n7k-core" {
  platform    = "nexus7000"
  address     = "172.16.0.1"
  credentials = "nxos"
  known_hosts = "known_hosts"
  vdc         = "core"
  interfaces  = ["Ethernet3/1-4", "Ethernet4/1-4"]
}

switch "gnmi" {
  for_each    = local.gnmi_leaves
  platform    = "gnmi"
  profile     = each.value.profile
  address     = each.value.address
  credentials = "gnmi"
  interfaces  = each.value.ports

  tls {
    ca_file     = var.gnmi_ca
    server_name = each.key
  }
}

host "node" {
  for_each    = local.hosts
  address     = "${each.key}.hpc.example.net"
  credentials = "hosts"
  switch      = each.value.leaf
  mpi         = each.value.stacks
  rdma_cm     = "configfs"

  nic "ens1f0" {
    rdma_device = "mlx5_0"
    vlan        = var.roce_vlan
    address     = "${cidrhost(local.subnet, each.value.n)}/24"
    roce_mode   = "v2"
    mtu         = 9000
  }
}

probe {
  tool               = "ib_write_bw"
  duration           = "10s"
  qps                = 2
  threshold_fraction = 0.9
  timeout            = "2m"
}

rollout {
  canary      = 2
  batch_size  = 4
  parallelism = 8
  pause       = "1m"
}
