#!/usr/bin/env bash
# Where a running JVM's CPU goes, per thread group: user and kernel seconds over an interval,
# threads grouped by their Java name with digits folded (hz.x.partition-operation.thread-N).
#
#   benchmarks/thread-cpu.sh <pid> <seconds>
#
# Reads /proc/<pid>/task/*/stat before and after (Linux; clock ticks of 10 ms) and names threads
# with jstack. Threads that end within the interval are not counted, so sample while the load's
# threads are running. Used for the thread breakdowns in docs/decisions/owner-path-cost.md and
# docs/decisions/client-sync-path.md.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <pid> <seconds>" >&2
  exit 2
fi
pid=$1
seconds=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

snapshot() {
  for task in /proc/"$pid"/task/*; do
    # Fields 14 and 15 of stat are utime and stime; the name field before them has no spaces
    # in a JVM's threads, but read after the last ')' to be safe.
    stat=$(cat "$task/stat" 2>/dev/null) || continue
    echo "$(basename "$task") $(echo "${stat##*) }" | awk '{print $12, $13}')"
  done | sort
}

snapshot >"$work/before"
sleep "$seconds"
snapshot >"$work/after"

jstack "$pid" | sed -n 's/^"\([^"]*\)".* nid=0x\([0-9a-f]*\).*/\2 \1/p' |
  while read -r hex name; do
    echo "$((16#$hex)) $(echo "$name" | tr ' ' '_' | sed 's/[0-9]\+/N/g')"
  done | sort >"$work/names"

# Threads born during the interval count from zero.
join -a1 -e 0 -o 0,1.2,1.3,2.2,2.3 "$work/after" "$work/before" |
  awk '{print $1, $2 - $4, $3 - $5}' | sort >"$work/delta"
join -a1 -e '(ended)' -o 0,1.2,1.3,2.2 "$work/delta" "$work/names" |
  awk '{user[$4] += $2; sys[$4] += $3; tu += $2; ts += $3}
       END {
         for (g in user) if (user[g] + sys[g] > 0)
           printf "%8.2f s user %8.2f s sys  %s\n", user[g] / 100, sys[g] / 100, g
         printf "%8.2f s user %8.2f s sys  TOTAL over '"$seconds"' s\n", tu / 100, ts / 100
       }' | sort -rn
