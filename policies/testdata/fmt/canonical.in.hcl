lossless "roce" {
  cos = 4 # comment kept
  mtu = 9216
}
