#!/bin/sh
# A Slurm cluster on one machine (notes: ../shared/notes/multi-host.md): slurmctld in the root network
# namespace, one slurmd in each namespace host made by netns-hosts.sh, munged shared through its unix
# socket. Everything lives in DIR (slurm.conf, state, logs, pids): point SLURM_CONF at DIR/slurm.conf.
#   slurm-cluster.sh up   DIR TAG N NET   hosts TAG1..TAGN at NET.11.. (created), controller at NET.1
#   slurm-cluster.sh down DIR TAG N       stop the daemons started by up, remove the hosts
# Needs root, slurm-wlm and munge (Debian: apt-get install slurm-wlm munge).
set -u
cmd=$1 dir=$2 tag=$3 n=$4
here=$(cd "$(dirname "$0")" && pwd)
case "$cmd" in
  up)
    net=$5
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" || exit 1
    if ! pgrep -x munged >/dev/null; then
      mkdir -p /run/munge && chown munge:munge /run/munge || exit 1
      su -s /bin/sh munge -c /usr/sbin/munged || exit 1
    fi
    "$here/netns-hosts.sh" up "$tag" "$n" "$net" || exit 1
    ctl=$(hostname -s)
    {
      echo "ClusterName=dapl"
      echo "SlurmctldHost=$ctl($net.1)"
      echo "SlurmUser=root"
      echo "SlurmdUser=root"
      echo "AuthType=auth/munge"
      echo "StateSaveLocation=$dir/state"
      echo "SlurmdSpoolDir=$dir/spool/slurmd-%n"
      echo "SlurmctldPidFile=$dir/slurmctld.pid"
      echo "SlurmdPidFile=$dir/slurmd-%n.pid"
      echo "SlurmctldLogFile=$dir/log/slurmctld.log"
      echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
      echo "ProctrackType=proctrack/linuxproc"
      echo "TaskPlugin=task/none"
      echo "SelectType=select/cons_tres"
      echo "SelectTypeParameters=CR_Core"
      echo "MpiDefault=none"
      echo "JobAcctGatherType=jobacct_gather/none"
      echo "AccountingStorageType=accounting_storage/none"
      echo "SwitchType=switch/none"
      echo "ReturnToService=2"
      echo "KillOnBadExit=1"
      i=1
      while [ "$i" -le "$n" ]; do
        echo "NodeName=$tag$i NodeAddr=$net.1$i NodeHostname=$tag$i CPUs=2 RealMemory=100 State=UNKNOWN"
        i=$((i + 1))
      done
      echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    } >"$dir/slurm.conf"
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -D >"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/daemons"
    i=1
    while [ "$i" -le "$n" ]; do
      nsenter --net="/run/netns/$tag$i" unshare --uts sh -c "hostname $tag$i; exec slurmd -D -N $tag$i" >"$dir/log/slurmd-$tag$i.out" 2>&1 &
      echo $! >>"$dir/daemons"
      i=$((i + 1))
    done
    # Wait (at most 30 s) until every node is idle.
    tries=0
    until [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq "$n" ]; do
      tries=$((tries + 1))
      if [ "$tries" -gt 150 ]; then
        echo "slurm-cluster: the nodes did not become idle within 30 s" >&2
        sinfo -N >&2
        tail -5 "$dir/log/"*.log >&2
        exit 1
      fi
      sleep 0.2
    done
    ;;
  down)
    if [ -f "$dir/daemons" ]; then
      for pid in $(cat "$dir/daemons"); do kill "$pid" 2>/dev/null; done
      sleep 0.5
      for pid in $(cat "$dir/daemons"); do kill -9 "$pid" 2>/dev/null; done
      rm -f "$dir/daemons"
    fi
    "$here/netns-hosts.sh" down "$tag" "$n"
    ;;
  *)
    echo "usage: $0 up DIR TAG N NET | down DIR TAG N" >&2
    exit 2
    ;;
esac
