# All traffic lossless: every frame on the fabric ports is protected.
#
# On Nexus 5000 and 7000 this is rendered as 802.3x link-level flow control
# (flowcontrol send/receive on) on every listed port, with PFC off: the two
# are mutually exclusive per interface. Hosts need no VLAN, because nothing
# has to be told apart.

variable "switch_password_env" {
  type        = string
  default     = "NXOS_PASSWORD"
  description = "Environment variable that holds the switch password."
}

credentials "nxos" {
  username     = "admin"
  password_env = var.switch_password_env
}

credentials "hosts" {
  username = "roce"
  key_file = "keys/id_ed25519"
}

lossless "everything" {
  all      = true
  priority = 0 # frames leave the NIC untagged / PCP 0
  mtu      = 9216
}

switch "storage-n5k" {
  platform    = "nexus5000"
  address     = "198.51.100.10"
  credentials = "nxos"
  host_key    = "SHA256:4mVUiY1m1hwL5PAZ1ztkUw3t5Pt3PjPb7y3Gr4a5Wzs"
  interfaces  = ["Ethernet1/1-32"]
}

switch "storage-n7k" {
  platform    = "nexus7000"
  address     = "198.51.100.11"
  credentials = "nxos"
  host_key    = "SHA256:Jx0bT5dZr8QmTQ7GzH0f7b1cVw3lq6gAq3d8tHc0aKk"
  vdc         = "storage"
  interfaces  = ["Ethernet3/1-48"]
}

host "target" {
  for_each    = toset(["nvme01", "nvme02"])
  address     = format("%s.storage.example.net", each.key)
  credentials = "hosts"
  switch      = "storage-n5k"

  nic "ens2f0" {
    address = each.key == "nvme01" ? "10.30.0.1/24" : "10.30.0.2/24"
  }
}

rollout {
  canary      = 1
  batch_size  = 1
  parallelism = 1
  pause       = "30s"
}
