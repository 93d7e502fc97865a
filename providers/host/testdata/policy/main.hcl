# A host section as a user writes it; the test passes the namespace and
# the lab root it created.
variable "netns" {
  type = string
}

variable "root" {
  type = string
}

lossless "rocev2" {
  udp_port = 4791
  dscp     = [26]
  priority = 4
}

host "h1" {
  local = true
  netns = var.netns
  root  = var.root
  mpi   = ["openmpi", "nccl"]

  nic "ens1f0" {
    vlan      = 100
    address   = "10.10.0.11/24"
    roce_mode = "v2"
  }
}
