#!/usr/bin/env bash
# Work per command behind S9's rows: CPU time and context switches that the server process spends
# per command, Sluice's grid node running CL.THROTTLE against redis-server running the same
# GCRA as a Lua script (EVALSHA), and the node's share per thread group. Counted, not timed: the
# throughput of a shared 2-core machine moves by half between runs, the work per command far less.
#
#   benchmarks/resp-work.sh [commands]      (default 300000; after ./mvnw -q -DskipTests package)
#
# SLUICE_NODE_JAR=<path> counts another build's node (default grid-node/target/sluice-node.jar),
# e.g. main built into a separate clone; SLUICE_NODE_OPTS adds JVM options (a variant's -D flags).
# CPU is printed as its total and its split into user and kernel (system calls) time.
# RESP_WORK_PIPELINE=16 pipelines 16 commands per connection (redis-benchmark -P) instead of 1;
# RESP_WORK_KEYS=hot sends every command to one key (S9's hot-key rows) instead of random keys.
#
# Starts its own node (SLUICE_PORT_OFFSET=300: REST 8380, Redis port 6680, member 6001) and
# redis-server (port 16399) on 127.0.0.1 with a random cluster name, drives each with
# redis-benchmark (-c 50 -P 1, 1,000,000 random keys, CL.THROTTLE key 99 100000 1 as in S9; the
# variables above change the depth and the keys) after a warm-up of 300,000 commands, reads
# /proc/<pid>/stat and /proc/<pid>/task/*/status before and after, and stops both. Each contender
# runs twice, in turn.
set -euo pipefail
cd "$(dirname "$0")/.."

commands=${1:-300000}
pipeline=${RESP_WORK_PIPELINE:-1}
offset=300
rest=$((8080 + offset))
resp=$((6380 + offset))
redis_port=16399
hz=$(getconf CLK_TCK)
work=$(mktemp -d)
node=""
redis=""
cleanup() {
  [ -n "$node" ] && kill "$node" 2>/dev/null || true
  [ -n "$redis" ] && kill "$redis" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

SLUICE_PORT_OFFSET=$offset SLUICE_CLUSTER_NAME="resp-work-$RANDOM$RANDOM" \
  java -Xms1g -Xmx1g -XX:+UseG1GC -Dhazelcast.phone.home.enabled=false \
  --add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  ${SLUICE_NODE_OPTS:-} -jar "${SLUICE_NODE_JAR:-grid-node/target/sluice-node.jar}" >"$work/node.log" 2>&1 &
node=$!
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no >"$work/redis.log" 2>&1 &
redis=$!
for _ in $(seq 1 90); do
  curl -sf "127.0.0.1:$rest/health/ready" >/dev/null && break
  sleep 1
done
curl -sf "127.0.0.1:$rest/health/ready" >/dev/null || { echo "the node did not start" >&2; exit 1; }
sha=$(redis-cli -p "$redis_port" SCRIPT LOAD \
  "$(cat benchmarks/src/main/resources/dev/sluice/bench/load/gcra_throttle.lua)")

key=k__rand_int__
[ "${RESP_WORK_KEYS:-random}" = hot ] && key=hot
sluice_cmd=(-p "$resp" CL.THROTTLE "$key" 99 100000 1)
redis_cmd=(-p "$redis_port" EVALSHA "$sha" 1 "$key" 99 100000 1)
drive() { # count, then the command
  local count=$1
  shift
  redis-benchmark -q -c 50 -P "$pipeline" -r 1000000 -n "$count" "$@" >/dev/null 2>&1
}
# Per thread: name (digits folded), user and kernel CPU ticks, context switches.
snapshot() {
  for task in /proc/"$1"/task/*; do
    stat=$(cat "$task/stat" 2>/dev/null) || continue
    switches=$(awk '/ctxt_switches/ {s += $2} END {print s}' "$task/status" 2>/dev/null) || continue
    name=$(tr ' ' '_' <"$task/comm" | sed 's/[0-9]\+/N/g')
    echo "$name $(echo "${stat##*) }" | awk '{print $12, $13}') $switches"
  done
}
measure() { # label, pid, then the command
  local label=$1 pid=$2
  shift 2
  snapshot "$pid" >"$work/before"
  local start end
  start=$(date +%s%N)
  drive "$commands" "$@"
  end=$(date +%s%N)
  snapshot "$pid" >"$work/after"
  awk -v n="$commands" -v hz="$hz" -v ns=$((end - start)) -v label="$label" '
    FNR == NR { usr[$1] -= $2; sys[$1] -= $3; sw[$1] -= $4; next }
    { usr[$1] += $2; sys[$1] += $3; sw[$1] += $4 }
    function us(ticks) { return ticks * 1e6 / hz / n }
    END {
      for (g in usr) { tu += usr[g]; tk += sys[g]; ts += sw[g] }
      printf "%-24s %6.2f us CPU/command (user %.2f, kernel %.2f)  %5.3f switches/command  %8.0f commands/s\n",
        label, us(tu + tk), us(tu), us(tk), ts / n, n * 1e9 / ns
      for (g in usr) if (us(usr[g] + sys[g]) >= 0.05)
        printf "    %-20s %6.2f us (user %.2f, kernel %.2f)  %5.3f\n",
          g, us(usr[g] + sys[g]), us(usr[g]), us(sys[g]), sw[g] / n
    }' "$work/before" "$work/after"
}

drive 300000 "${sluice_cmd[@]}"
drive 300000 "${redis_cmd[@]}"
for _ in 1 2; do
  measure "Sluice CL.THROTTLE" "$node" "${sluice_cmd[@]}"
  measure "Redis + Lua EVALSHA" "$redis" "${redis_cmd[@]}"
done
