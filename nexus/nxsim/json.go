package nxsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rocefabric/roce/nexus"
)

// `show … | json`: the structured form of a show command, as NX-OS prints
// it from the release that brought NX-API to the Nexus 5000/6000/7000
// families (7.2) on (docs/nxos.md, "| json"). Earlier releases answer the
// word json with the usual caret error, as for any filter they lack.
//
// Keys, their order and the JSON type of every value follow public
// captures (nexus/nxsim/testdata/json/README.md): tables are
// "TABLE_x": {"ROW_x": …}, where ROW_x is one object for one row and an
// array for several. Only the commands with a capture have a JSON form
// here; the others answer an ERROR that says so rather than a made-up
// shape.

// jsonField is one key of a JSON object; jsonObject keeps the keys in the
// order the switch prints them.
type jsonField struct {
	key string
	val any
}

type jsonObject []jsonField

// MarshalJSON prints the keys in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonTable is "TABLE_name": {"ROW_name": rows}, a single row as an object.
func jsonTable(name string, rows []jsonObject) jsonField {
	var row any = rows
	if len(rows) == 1 {
		row = rows[0]
	}
	return jsonField{"TABLE_" + name, jsonObject{{"ROW_" + name, row}}}
}

var reRelease = regexp.MustCompile(`^(\d+)\.(\d+)\(`)

// hasJSONPipe reports whether an NX-OS release has `| json`: 7.2 and
// later on the 5000/6000/7000 families.
func hasJSONPipe(release string) bool {
	m := reRelease.FindStringSubmatch(release)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 7 || (major == 7 && minor >= 2)
}

// execJSON runs `CMD | json [| more filters]` (or `| json-pretty`) when
// the first filter is json or json-pretty and the release has it; ok is
// false otherwise (the line then runs as usual, and a release without
// json answers the caret error at the word). filters are where each
// filter's text starts in line, as splitPipes gives them.
func (s *session) execJSON(line, cmd string, filters []int, base int) (string, bool) {
	if len(filters) == 0 {
		return "", false
	}
	pretty := false
	switch strings.TrimSpace(filterText(line, filters, 0)) {
	case "json":
	case "json-pretty":
		pretty = true
	default:
		return "", false
	}
	s.sw.mu.Lock()
	release := s.sw.version.OS
	s.sw.mu.Unlock()
	if !hasJSONPipe(release) {
		return "", false
	}
	if _, _, merr := s.sw.exec.match(cmd); merr != nil {
		return "", false // the command itself is wrong: the usual caret error
	}
	h, args, merr := jsonTree(pretty).match(cmd)
	if merr != nil {
		return "ERROR: nxsim has no JSON form of `" + strings.TrimSpace(cmd) + "` (no public capture of it for this platform; docs/nxos.md#json-output)", true
	}
	out, err := h(s, args)
	if err != nil {
		return err.Error(), true
	}
	for i := 1; i < len(filters); i++ {
		text := filterText(line, filters, i)
		filtered, ok, ferr := applyPipe(out, text)
		switch {
		case ferr != nil:
			return ferr.Error(), true
		case !ok:
			return caretError(base+filters[i]+len(text)-len(strings.TrimLeft(text, " ")), "invalid", ""), true
		}
		out = filtered
	}
	return out, true
}

// filterText is the text of filter i of line, up to the next '|'.
func filterText(line string, filters []int, i int) string {
	if i+1 < len(filters) {
		return line[filters[i] : filters[i+1]-1]
	}
	return line[filters[i]:]
}

// jsonTree is the grammar of the commands with a JSON form; pretty
// indents the JSON as `| json-pretty` does.
func jsonTree(pretty bool) *cmdNode {
	t := &cmdNode{}
	marshal := func(o jsonObject) (string, error) {
		if pretty {
			return prettyJSON(o)
		}
		b, err := json.Marshal(o)
		return string(b), err
	}
	t.add("show version", func(s *session, _ []string) (string, error) { return marshal(s.sw.versionJSON()) })
	t.add("show hostname", func(s *session, _ []string) (string, error) {
		return marshal(jsonObject{{"hostname", s.sw.hostname}})
	})
	t.add("show inventory", func(s *session, _ []string) (string, error) { return marshal(s.sw.inventoryJSON()) })
	t.add("show interface", func(s *session, _ []string) (string, error) {
		return marshal(s.sw.interfaceJSON(s.sw.interfaces))
	})
	t.add("show interface <list...>", func(s *session, a []string) (string, error) {
		names, err := s.sw.expandInterfaces(a[0])
		if err != nil {
			return "", err
		}
		return marshal(s.sw.interfaceJSON(names))
	})
	return t
}

// prettyJSON prints o as `| json-pretty` does in a public capture
// (docs/nxos.md, "| json"): each key on its own line, indented by four
// spaces a level, ", " ending a line that a further key or row follows.
func prettyJSON(o jsonObject) (string, error) {
	b, err := json.MarshalIndent(o, "", "    ")
	if err != nil {
		return "", err
	}
	// A newline inside a string is escaped, so every ",\n" is a separator.
	return strings.ReplaceAll(string(b), ",\n", ", \n"), nil
}

// versionJSON is `show version | json`: the keys, order and types of an
// NX-OS 7.3(1)D1(1) capture. Build dates the simulator does not know are
// empty strings.
func (sw *Switch) versionJSON() jsonObject {
	sw.mu.Lock()
	r := sw.versionReport()
	sw.mu.Unlock()
	text := nexus.FormatShowVersionReport(r)
	header := strings.TrimRight(text[:strings.Index(text, "\nSoftware\n")], "\n") + "\n"
	chassis, module := r.Hardware, ""
	// The last parenthesis holds the module: a 7000's chassis name has
	// its own ("C7009 (9 Slot) Chassis").
	if i := strings.LastIndex(chassis, " ("); i > 0 && strings.HasSuffix(chassis, ")") {
		chassis, module = chassis[:i], strings.Trim(chassis[i+2:len(chassis)-1], `"`)
	}
	cpu, memory := r.CPU, 0
	if i := strings.Index(cpu, " with "); i > 0 {
		fmt.Sscan(cpu[i+len(" with "):], &memory)
		cpu = strings.TrimSpace(cpu[:i])
	}
	bootflash := 0
	fmt.Sscan(r.Bootflash, &bootflash)
	up := int64(max(r.Uptime, 0) / time.Second)
	return jsonObject{
		{"header_str", header},
		{"loader_ver_str", "N/A"},
		{"kickstart_ver_str", r.Kickstart},
		{"sys_ver_str", r.OS},
		{"kick_file_name", r.KickstartImage},
		{"kick_cmpl_time", ""},
		{"kick_tmstmp", ""},
		{"isan_file_name", r.Image},
		{"isan_cmpl_time", ""},
		{"isan_tmstmp", ""},
		{"chassis_id", chassis},
		{"module_id", module},
		{"cpu_name", cpu},
		{"memory", memory},
		{"mem_type", "kB"},
		{"proc_board_id", r.Serial},
		{"host_name", r.DeviceName},
		{"bootflash_size", bootflash},
		{"kern_uptm_days", up / 86400},
		{"kern_uptm_hrs", up % 86400 / 3600},
		{"kern_uptm_mins", up % 3600 / 60},
		{"kern_uptm_secs", up % 60},
		{"manufacturer", "Cisco Systems, Inc."},
	}
}

// inventoryJSON is `show inventory | json` (TABLE_inv, as a Nexus 6001
// prints it).
func (sw *Switch) inventoryJSON() jsonObject {
	items := sw.inventory()
	rows := make([]jsonObject, 0, len(items))
	for _, it := range items {
		rows = append(rows, jsonObject{
			{"name", it.Name}, {"desc", strings.TrimSpace(it.Descr)}, {"productid", it.PID},
			{"vendorid", it.VID}, {"serialnum", it.SN},
		})
	}
	return jsonObject{jsonTable("inv", rows)}
}

// interfaceJSON is `show interface [LIST] | json` (TABLE_interface): per
// port the keys of an Ethernet port of the 7.3(1)D1(1) capture, from the
// same state `show interface` prints; counters and rates are zero but
// for the discards a test added (AddDiscards).
func (sw *Switch) interfaceJSON(names []string) jsonObject {
	rows := make([]jsonObject, 0, len(names))
	for _, p := range sw.interfaceStatus(names) {
		state := "up"
		if !p.Up {
			state = "down"
		}
		speed, bw := p.Speed, 10000000
		duplex := strings.TrimSuffix(p.Duplex, "-duplex")
		row := jsonObject{
			{"interface", p.Name}, {"state", state}, {"admin_state", state},
		}
		if p.Description != "" {
			row = append(row, jsonField{"desc", p.Description})
		}
		row = append(row, jsonObject{
			{"share_state", "Dedicated"}, {"eth_hw_desc", p.Hardware}, {"eth_hw_addr", p.MAC}, {"eth_bia_addr", p.MAC},
			{"eth_mtu", strconv.Itoa(p.MTU)}, {"eth_bw", bw}, {"eth_dly", 10}, {"eth_reliability", "255"},
			{"eth_txload", "1"}, {"eth_rxload", "1"}, {"medium", "broadcast"}, {"eth_mode", p.Mode},
			{"eth_duplex", duplex}, {"eth_speed", speed}, {"eth_beacon", "off"}, {"eth_autoneg", "off"},
			{"eth_in_flowctrl", "off"}, {"eth_out_flowctrl", "off"}, {"eth_mdix", "off"}, {"eth_swt_monitor", "off"},
			{"eth_ethertype", "0x8100"}, {"eth_eee_state", "n/a"}, {"eth_link_flapped", "never"},
			{"eth_clear_counters", "never"}, {"eth_reset_cntr", 0},
		}...)
		for _, n := range []string{"1", "2"} {
			row = append(row, jsonObject{
				{"eth_load_interval" + n + "_rx", 0}, {"eth_inrate" + n + "_bits", 0}, {"eth_inrate" + n + "_pkts", 0},
				{"eth_load_interval" + n + "_tx", 0}, {"eth_outrate" + n + "_bits", 0}, {"eth_outrate" + n + "_pkts", 0},
				{"eth_inrate" + n + "_summary_bits", "0 bps"}, {"eth_inrate" + n + "_summary_pkts", "0 pps"},
				{"eth_outrate" + n + "_summary_bits", "0 bps"}, {"eth_outrate" + n + "_summary_pkts", "0 pps"},
			}...)
		}
		for _, k := range []string{"eth_inucast", "eth_inmcast", "eth_inbcast", "eth_inpkts", "eth_inbytes",
			"eth_jumbo_inpkts", "eth_storm_supp", "eth_runts", "eth_giants", "eth_crc", "eth_nobuf", "eth_inerr",
			"eth_frame", "eth_overrun", "eth_underrun", "eth_ignored", "eth_watchdog", "eth_bad_eth", "eth_bad_proto",
			"eth_in_ifdown_drops", "eth_dribble", "eth_indiscard", "eth_inpause", "eth_outucast", "eth_outmcast",
			"eth_outbcast", "eth_outpkts", "eth_outbytes", "eth_jumbo_outpkts", "eth_outerr", "eth_coll",
			"eth_deferred", "eth_latecoll", "eth_lostcarrier", "eth_nocarrier", "eth_babbles", "eth_outdiscard",
			"eth_outpause"} {
			var v uint64
			switch k {
			case "eth_indiscard":
				v = p.InDiscards
			case "eth_outdiscard":
				v = p.OutDiscards
			}
			row = append(row, jsonField{k, v})
		}
		rows = append(rows, row)
	}
	return jsonObject{jsonTable("interface", rows)}
}
