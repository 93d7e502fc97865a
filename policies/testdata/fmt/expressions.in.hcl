variable "x" {
  type = number
  default = 3
}

locals {
  hosts = { for i in range(3): format("h%d",i) => i }
}
