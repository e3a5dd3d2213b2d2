#!/usr/bin/env bash
# Runs Sluice's load and peer comparison and renders docs/benchmarks.md from its template
# (benchmarks/src/main/resources/dev/sluice/bench/load/benchmarks-page.md) + docs/img/bench-*.png.
#
#   benchmarks/run.sh            full run (5 rounds per contender; about 40 minutes)
#   benchmarks/run.sh --quick    smoke run for CI (short rounds, 20k keys for memory; a minute or two);
#                                it reports to benchmarks/target/benchmarks-quick.md, not docs/
#   benchmarks/run.sh --only S10 two regions and a home grid at 50 ms on a global rule (about a
#                                minute and a half): benchmarks/target/benchmarks-only.md
#
# Other options: --no-build (use what `./mvnw package` or `verify` built), --only S1,S2,...,S10,
# --doc FILE, --img DIR, --strict (exit 1 if a Sluice contender could not run; peers may be absent).
# An --only run reports to benchmarks/target/benchmarks-only.md unless --doc says otherwise: the
# report writes a whole page, so a partial run written to docs/benchmarks.md would drop every other
# scenario's table (a partial run's figures belong in a decision record, docs/decisions/).
# It builds the project, installs redis-server, redis-benchmark (redis-tools) and wrk from the OS
# packages when absent (their rows say "not run: reason" if that fails), starts every server it
# measures as its own process on 127.0.0.1 and stops exactly those processes again. A missing peer
# never fails the run; a broken harness does.
set -euo pipefail
cd "$(dirname "$0")/.."

COMMAND="benchmarks/run.sh${*:+ $*}"
BUILD=1
QUICK=0
ARGS=()
for arg in "$@"; do
  case "$arg" in
    --no-build) BUILD=0 ;;
    --quick) QUICK=1; ARGS+=("$arg") ;;
    *) ARGS+=("$arg") ;;
  esac
done

have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ]; }

# install_package PACKAGE: from the OS packages (Debian's redis-server, redis-tools, wrk), never a
# system-wide service. Only as root with apt-get; a failure is reported and leaves that peer "not
# run".
install_package() {
  local package=$1 log=benchmarks/target/apt-$1.log
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "run.sh: $package is absent and cannot be installed here (needs root and apt-get)"
    return 1
  fi
  echo "run.sh: installing $package from the OS packages"
  # Keep a package from starting a system-wide server: the harness starts its own on a free port.
  local policy=/usr/sbin/policy-rc.d made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
  fi
  local status=0
  export DEBIAN_FRONTEND=noninteractive
  timeout 120 apt-get install -y -q "$package" >"$log" 2>&1 \
    || { timeout 120 apt-get update -q >>"$log" 2>&1 \
         && timeout 120 apt-get install -y -q "$package" >>"$log" 2>&1; } \
    || status=$?
  [ "$made_policy" = 1 ] && rm -f "$policy"
  if [ "$status" != 0 ]; then
    echo "run.sh: could not install $package (see $log); its rows will say 'not run'"
  fi
  return "$status"
}

mkdir -p benchmarks/target
have redis-server || install_package redis-server || true
have wrk || install_package wrk || true
have redis-benchmark || install_package redis-tools || true

# benchmarks/pom.xml writes benchmarks/target/classpath.txt in the package phase.
if [ "$BUILD" = 1 ] || [ ! -f benchmarks/target/classpath.txt ]; then
  echo "run.sh: building (./mvnw -q -DskipTests package)"
  ./mvnw -q -DskipTests package
fi

CLASSPATH_FILE=benchmarks/target/classpath.txt
CP="benchmarks/target/classes:$(cat "$CLASSPATH_FILE")"
JVM_FLAGS=(-Xms1g -Xmx2g -Djava.awt.headless=true
  -Dhazelcast.phone.home.enabled=false -Dhazelcast.logging.type=slf4j
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
  --add-modules=java.se --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.management/sun.management=ALL-UNNAMED
  --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED)

# S1b runs with S1: in a full run, or an --only list that names S1 itself (S10 is not S1).
RUN_GRID=1
ONLY=""
PREVIOUS=""
for arg in "$@"; do
  [ "$PREVIOUS" = --only ] && ONLY=",${arg^^},"
  PREVIOUS=$arg
done
if [ -n "$ONLY" ] && [[ "$ONLY" != *,S1,* ]]; then RUN_GRID=0; fi

if [ "$QUICK" = 1 ]; then
  LIMIT=600
elif [ "$RUN_GRID" = 1 ]; then
  LIMIT=2700
  # S1b: the grid's own embedded benchmark (issue 3), every mode, embedded in the report as printed.
  # Only the member in Sluice's default state format (SluiceHazelcast.DEFAULT_STATE_FORMAT, OBJECT
  # since issue 21): Bucket4j's modes run beside it, so the ratio columns need that member.
  GRID_OUT=benchmarks/target/grid-benchmark.txt
  echo "run.sh: running dev.sluice.bench.grid.GridBenchmark --only=OBJECT (S1b)"
  timeout --signal=TERM --kill-after=30 600 java "${JVM_FLAGS[@]}" -cp "$CP" \
    dev.sluice.bench.grid.GridBenchmark --only=OBJECT >"$GRID_OUT" 2>&1 \
    || echo "run.sh: GridBenchmark failed (exit $?); S1b will say so"
  ARGS+=(--grid-output "$GRID_OUT")
  LIMIT=2700
else
  LIMIT=2700
fi

# The harness stops every server it started (shutdown hook); timeout bounds the whole run.
exec timeout --signal=TERM --kill-after=30 "$LIMIT" java "${JVM_FLAGS[@]}" \
  "-Dbench.command=$COMMAND" -cp "$CP" dev.sluice.bench.load.LoadBench "${ARGS[@]}"
