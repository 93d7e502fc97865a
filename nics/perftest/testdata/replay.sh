#!/bin/sh
# Substitute probe command: prints a recorded perftest output and ignores
# the perftest arguments roce appends. Usage in a policy or on the CLI:
#   probe { command = ["sh", "nics/perftest/testdata/replay.sh", "nics/perftest/testdata/rdma_cm_gbps.txt"] }
#   roce-verify -probe-command "sh nics/perftest/testdata/replay.sh nics/perftest/testdata/rdma_cm_gbps.txt"
cat "$1"
