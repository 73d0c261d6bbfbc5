#!/bin/sh
# A cluster of H "machines" on this one: network namespaces bsim-1 .. bsim-H, each joined to a
# bridge in this namespace by a veth pair whose two ends are shaped to RATE (tc tbf: the
# machine's NIC, both directions) and, where the kernel has sch_netem, delayed by DELAY. The
# bridge holds 10.231.0.1 (where the scheduler listens); machine h is 10.231.0.(h+1) on its
# interface sim0. Needs root and iproute2.
#
#   netns_cluster.sh up H RATE [DELAY]   e.g. up 8 25gbit 50us
#   netns_cluster.sh down
#
# braid launch --launcher ssh reaches the machines through netns_ssh.sh (BRAID_SSH).
set -e
bridge=sim0  # the same name as the machines' interface: DMLC_INTERFACE=sim0 fits the scheduler too
shape() {  # shape NETNS DEVICE RATE DELAY (NETNS "-" for this namespace)
  exec_in=""
  [ "$1" = "-" ] || exec_in="ip netns exec $1"
  if [ -n "$4" ] && $exec_in tc qdisc add dev "$2" root netem delay "$4" rate "$3" 2>/dev/null; then return; fi
  $exec_in tc qdisc add dev "$2" root tbf rate "$3" burst 4mb latency 50ms
}
case "$1" in
up)
  hosts=$2 rate=$3 delay=$4
  ip link add $bridge type bridge
  ip addr add 10.231.0.1/24 dev $bridge
  ip link set $bridge up
  h=1
  while [ "$h" -le "$hosts" ]; do
    ip netns add bsim-$h
    ip link add bsv-$h type veth peer name sim0 netns bsim-$h
    ip link set bsv-$h master $bridge up
    ip -n bsim-$h addr add 10.231.0.$((h + 1))/24 dev sim0
    ip -n bsim-$h link set sim0 up
    ip -n bsim-$h link set lo up
    shape bsim-$h sim0 "$rate" "$delay"
    shape - bsv-$h "$rate" "$delay"
    h=$((h + 1))
  done
  if [ -n "$delay" ] && ! tc qdisc show dev bsv-1 | grep -q netem; then
    echo "netns_cluster.sh: this kernel has no sch_netem: links shaped to $rate without the $delay delay" >&2
  fi
  ;;
down)
  for ns in $(ip netns list | awk '/^bsim-/ {print $1}'); do ip netns del "$ns"; done
  ip link del $bridge 2>/dev/null || true
  ;;
*)
  echo "usage: $0 up HOSTS RATE [DELAY] | down" >&2
  exit 2
  ;;
esac
