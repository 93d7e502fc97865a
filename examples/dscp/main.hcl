# Lossless by DSCP: RoCE v2 traffic marked DSCP 26 is no-drop on priority 3,
# with ECN marking (DCQCN) and the PFC watchdog, on a routed SONiC/Arista
# fabric. The switches trust DSCP, so hosts need no VLAN.

variable "dscp" {
  type    = number
  default = 26
  validation {
    condition     = var.dscp >= 0 && var.dscp <= 63
    error_message = "dscp must be 0-63."
  }
}

locals {
  leaves = {
    "leaf1" = { profile = "sonic", address = "10.0.0.1:8080" }
    "leaf2" = { profile = "arista", address = "10.0.0.2:6030" }
  }
}

credentials "gnmi" {
  username     = "admin"
  password_env = "GNMI_PASSWORD"
}

credentials "hosts" {
  username = "roce"
  key_env  = "ROCE_SSH_KEY"
}

lossless "rocev2" {
  dscp              = var.dscp
  priority          = 3
  mtu               = 9100
  bandwidth_percent = 50

  ecn {
    min_threshold_kb = 150
    max_threshold_kb = 1500
    probability      = 10
  }

  pfc_watchdog {
    detection_ms   = 200
    restoration_ms = 400
    action         = "drop"
  }
}

switch "leaf" {
  for_each    = local.leaves
  platform    = "gnmi"
  profile     = each.value.profile
  address     = each.value.address
  credentials = "gnmi"
  interfaces  = each.value.profile == "sonic" ? ["Ethernet0", "Ethernet4", "Ethernet8"] : ["Ethernet1/1-4"]

  tls {
    ca_file     = "pki/ca.pem"
    server_name = each.key
  }
}

host "node" {
  # node -> (leaf, index); each host gets its own routed /31 to its leaf.
  for_each = {
    "node1" = { leaf = "leaf1", n = 0 }
    "node2" = { leaf = "leaf1", n = 1 }
    "node3" = { leaf = "leaf2", n = 2 }
    "node4" = { leaf = "leaf2", n = 3 }
  }
  address     = each.key
  credentials = "hosts"
  rdma_cm     = "configfs"
  mpi         = ["nccl", "ucx"]
  switch      = each.value.leaf

  nic "ens3f0np0" {
    address = "${cidrhost(cidrsubnet("10.100.0.0/24", 7, each.value.n), 1)}/31"
    trust   = "dscp"
  }
}

probe {
  tool               = "ib_write_bw"
  rdma_cm            = true
  threshold_fraction = 0.85
}
