lossless "roce" {
cos=4
    mtu    =9216
  bandwidth_percent= 50
}

switch "s1" {
platform="nexus5000"
        interfaces=["Ethernet1/1-4","Ethernet2/1"]
    tls {
  ca_file="ca.pem"
    }
}
