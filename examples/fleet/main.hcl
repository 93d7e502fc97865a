# A fleet: 50 SONiC leaves and 1,000 GPU hosts, 20 per leaf, generated with
# for_each from locals. RoCE v2 marked DSCP 26 on priority 3, routed /31
# host links, so no VLANs are needed (SONiC classifies on DSCP).

variable "leaf_count" {
  type    = number
  default = 50
}

variable "hosts_per_leaf" {
  type    = number
  default = 20
  validation {
    condition     = var.hosts_per_leaf > 0 && var.hosts_per_leaf <= 64
    error_message = "hosts_per_leaf must be 1-64 (a leaf has 64 host ports)."
  }
}

locals {
  leaves = {
    for i in range(var.leaf_count) : format("leaf%02d", i + 1) => {
      address = format("10.255.0.%d:8080", i + 1)
    }
  }
  hosts = {
    for i in range(var.leaf_count * var.hosts_per_leaf) : format("gpu%04d", i + 1) => {
      leaf = format("leaf%02d", floor(i / var.hosts_per_leaf) + 1)
      mgmt = cidrhost("10.128.0.0/16", i + 10)
      # Each host link is its own /31; the host takes the odd address.
      link = cidrhost(cidrsubnet("10.64.0.0/16", 15, i), 1)
    }
  }
}

credentials "sonic" {
  username     = "admin"
  password_env = "SONIC_PASSWORD"
}

credentials "fleet" {
  username = "roce"
  key_env  = "ROCE_SSH_KEY"
}

lossless "rocev2" {
  dscp     = 26
  priority = 3
  mtu      = 9100
  # No bandwidth_percent: the sonic profile does not render scheduler
  # weights, so the leaves keep their default DWRR shares.

  ecn {
    min_threshold_kb = 100
    max_threshold_kb = 1000
    probability      = 5
  }
}

switch "leaf" {
  for_each    = local.leaves
  platform    = "gnmi"
  profile     = "sonic"
  address     = each.value.address
  credentials = "sonic"
  interfaces  = [for p in range(var.hosts_per_leaf) : format("Ethernet%d", p * 4)]

  tls {
    ca_file = "pki/ca.pem"
  }
}

host "gpu" {
  for_each    = local.hosts
  address     = each.value.mgmt
  credentials = "fleet"
  switch      = each.value.leaf
  mpi         = ["nccl", "ucx"]

  nic "ens1f0np0" {
    rdma_device = "mlx5_0"
    address     = "${each.value.link}/31"
    mtu         = 9000
  }
}

probe {
  duration           = "5s"
  threshold_fraction = 0.9
}

rollout {
  canary      = 5
  batch_size  = 100
  parallelism = 64
  pause       = "10s"
}
