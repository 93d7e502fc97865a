package host

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// A host whose port accepts TCP but never speaks SSH is reported after the
// handshake limit, naming the address and the stage — not after the
// run's overall timeout (here: none at all).
func TestSSHSilentListenerReportedAtHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, say nothing
		}
	}()
	r := &sshRunner{addr: ln.Addr().String(), config: &ssh.ClientConfig{User: "root", HostKeyCallback: refuseKeys},
		handshakeTimeout: 200 * time.Millisecond}
	_, _, err = r.run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "ssh handshake with "+ln.Addr().String()) || !strings.Contains(err.Error(), "no SSH server answers") {
		t.Fatalf("err %v", err)
	}
}

func TestSSHClosedPortNamesTheAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := &sshRunner{addr: addr, config: &ssh.ClientConfig{User: "root", HostKeyCallback: refuseKeys}}
	_, _, err = r.run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "connect to "+addr) {
		t.Fatalf("err %v", err)
	}
}

// refuseKeys accepts no host key: these tests never get that far.
func refuseKeys(string, net.Addr, ssh.PublicKey) error {
	return errors.New("test: no host key is accepted")
}
