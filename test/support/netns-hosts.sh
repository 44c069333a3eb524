#!/bin/sh
# Hosts as network namespaces on one machine (notes: ../shared/notes/multi-host.md), for the
# multi-host tests and CI. Needs root and iproute2.
#   netns-hosts.sh up   TAG N NET   bridge br-TAG at NET.1/24; namespaces TAG1..TAGN at NET.11.. with
#                                   lo and eth0 only (no route beyond NET.0/24)
#   netns-hosts.sh down TAG N       remove them (what is already gone is skipped)
#   netns-hosts.sh pids TAG I       the pids of every process in host TAGI
set -u
cmd=$1 tag=$2
case "$cmd" in
  up)
    n=$3 net=$4
    "$0" down "$tag" "$n" 2>/dev/null
    ip link add "br-$tag" type bridge || exit 1
    ip link set "br-$tag" up && ip addr add "$net.1/24" dev "br-$tag" || exit 1
    i=1
    while [ "$i" -le "$n" ]; do
      ip netns add "$tag$i" || exit 1
      ip link add "v-$tag$i" type veth peer name eth0 netns "$tag$i" || exit 1
      ip link set "v-$tag$i" master "br-$tag" up || exit 1
      ip -n "$tag$i" addr add "$net.1$i/24" dev eth0 || exit 1
      ip -n "$tag$i" link set eth0 up && ip -n "$tag$i" link set lo up || exit 1
      i=$((i + 1))
    done
    ;;
  down)
    n=$3
    i=1
    while [ "$i" -le "$n" ]; do
      if [ -e "/run/netns/$tag$i" ]; then
        for pid in $(ip netns pids "$tag$i" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
        ip netns del "$tag$i" 2>/dev/null
      fi
      ip link del "v-$tag$i" 2>/dev/null
      i=$((i + 1))
    done
    ip link del "br-$tag" 2>/dev/null
    true
    ;;
  pids)
    ip netns pids "$tag$3"
    ;;
  *)
    echo "usage: $0 up TAG N NET | down TAG N | pids TAG I" >&2
    exit 2
    ;;
esac
