package policies

// LosslessFor returns the classes a switch carries: the ones it names in
// lossless = [...], or every class of the fabric when it names none.
// Unknown names are skipped (Load rejects them).
func (f *Fabric) LosslessFor(sw *Switch) []*Lossless {
	if len(sw.Lossless) == 0 {
		return f.Lossless
	}
	out := make([]*Lossless, 0, len(sw.Lossless))
	for _, n := range sw.Lossless {
		if c := f.LosslessByName(n); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// LosslessByName returns the class called name, or nil.
func (f *Fabric) LosslessByName(name string) *Lossless {
	for _, c := range f.Lossless {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ClassForNIC returns the class a NIC carries: the one it names, or the
// fabric's only class when it names none; nil when neither applies.
func (f *Fabric) ClassForNIC(n *NIC) *Lossless {
	if n.Lossless != "" {
		return f.LosslessByName(n.Lossless)
	}
	if len(f.Lossless) == 1 {
		return f.Lossless[0]
	}
	return nil
}

// SwitchByName returns the switch called name, or nil.
func (f *Fabric) SwitchByName(name string) *Switch { return findSwitch(f.Switches, name) }

// HostByName returns the host called name, or nil.
func (f *Fabric) HostByName(name string) *Host { return findHost(f.Hosts, name) }

func findSwitch(sws []*Switch, name string) *Switch {
	for _, s := range sws {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func findHost(hs []*Host, name string) *Host {
	for _, h := range hs {
		if h.Name == name {
			return h
		}
	}
	return nil
}
