#!/bin/sh
# ssh for the machines of netns_cluster.sh: `netns_ssh.sh [OPTIONS] HOST COMMAND...` runs the
# command (its words joined, as ssh does) with sh in the network namespace HOST (bsim-N), under
# the host name HOST (MPI tells machines apart by name), standard input passed through.
while [ $# -gt 0 ]; do
  case $1 in
  -[oplLiFcmDRSWw]) shift 2 ;;  # options with a value
  -*) shift ;;
  *) break ;;
  esac
done
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c "hostname '$host' && $*"
