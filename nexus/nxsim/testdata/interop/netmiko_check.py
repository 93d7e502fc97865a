"""Drive nxsim with netmiko (cisco_nxos) and parse with ntc-templates.

Usage: netmiko_check.py HOST PORT USER   (password in $NXSIM_PASSWORD,
NET_TEXTFSM pointing at the vendored templates). Prints one JSON object:
{"command": parsed-or-raw, ...}; exits non-zero on any failure.
"""
import json
import os
import sys

from netmiko import ConnectHandler


def main():
    host, port, user = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    commands = sys.argv[4:]
    conn = ConnectHandler(
        device_type="cisco_nxos",
        host=host,
        port=port,
        username=user,
        password=os.environ["NXSIM_PASSWORD"],
        allow_agent=False,
        use_keys=False,
        timeout=20,
    )
    out = {"prompt": conn.find_prompt()}
    for cmd in commands:
        parsed = cmd.startswith("parse:")
        if parsed:
            cmd = cmd[len("parse:"):]
        out[cmd] = conn.send_command(cmd, use_textfsm=parsed)
    conn.disconnect()
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
