#!/usr/bin/env bash
# A sweep's throughput: 16 scenarios of examples/sensor_rig.world.xml (8 seeds x 2 yard sizes,
# SECONDS simulated each) run as 16 sequential `passerby run`s (each on all cores), as
# `passerby sweep` (the local process pool: one single-threaded scenario per core) and as
# `passerby sweep --engine ray` (Ray tasks on a local cluster on 127.0.0.1, started by the sweep
# and also, as `ray-up`, on a cluster already running), in interleaved rounds; then checks that
# every way wrote byte-identical recordings.
# usage: bash benches/sweep_throughput.sh [ROUNDS] [SECONDS]
# Ray needs a Python with the package and Ray: PASSERBY_PYTHON (default: a virtual environment
# made under target/bench-sweep-venv on first use, with `pip install ./python[ray]`).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
seconds=${2:-2}
cargo build --release --quiet
bin=$PWD/target/release/passerby
if [ -z "${PASSERBY_PYTHON:-}" ]; then
  venv=$PWD/target/bench-sweep-venv
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import passerby, ray' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'maturin>=1.7,<2' 'ray==2.60.0'
    (cd python && VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH maturin develop --quiet --release)
  fi
  export PASSERBY_PYTHON=$venv/bin/python
fi
out=$(mktemp -d)
ray_cli=$(dirname "$PASSERBY_PYTHON")/ray
trap 'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 "$ray_cli" stop > /dev/null 2>&1 || true; rm -rf "$out"' EXIT
# A cluster that stays up for the `ray-up` column: loopback only (see docs/python.md), without
# Ray's token authentication (a client would need the head's token otherwise).
RAY_AUTH_MODE=disabled RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 "$ray_cli" start --head --node-ip-address 127.0.0.1 \
  --port 6399 --include-dashboard false --disable-usage-stats > /dev/null 2>&1
cat > "$out/spec.toml" <<SPEC
worlds = ["$PWD/examples/sensor_rig.world.xml"]
seeds = { from = 0, count = 8 }
duration = $seconds
threads = 1
[variables]
YARD = [8, 12]
SPEC
export PASSERBY_OFFLINE=1
now() { date +%s.%N; }
sequential() {
  rm -rf "$out/seq" && mkdir -p "$out/seq"
  for seed in 0 1 2 3 4 5 6 7; do
    for yard in 8 12; do
      "$bin" -q --seed "$seed" --var "YARD=$yard" run examples/sensor_rig.world.xml \
        --duration "$seconds" --out "$out/seq/s${seed}_YARD-${yard}.mcap"
    done
  done
}
engine() {
  rm -rf "$out/$1"
  "$bin" -q sweep "$out/spec.toml" --out "$out/$1" --engine "${1%-up}" "${@:2}" > /dev/null 2>&1
}
printf '%-6s %11s %11s %11s %11s %10s %10s %10s\n' round sequential local ray ray-up \
  local/seq ray/seq ray-up/seq
for round in $(seq "$rounds"); do
  t0=$(now); sequential; t1=$(now); engine local; t2=$(now); engine ray; t3=$(now)
  engine ray-up --ray-address 127.0.0.1:6399; t4=$(now)
  awk -v r="$round" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" 'BEGIN {
    s = b - a; l = c - b; y = d - c; u = e - d
    printf "%-6s %10.2fs %10.2fs %10.2fs %10.2fs %9.2fx %9.2fx %9.2fx\n", r, s, l, y, u, s / l, s / y, s / u }'
done
# Identical outputs: every engine's recording of a scenario equals the sequential run's.
for seed in 0 1 2 3 4 5 6 7; do
  for yard in 8 12; do
    id=$(printf '%04d_sensor_rig_s%d_YARD-%d' $(( seed * 2 + (yard == 12) )) "$seed" "$yard")
    cmp -s "$out/seq/s${seed}_YARD-${yard}.mcap" "$out/local/$id/run.mcap"
    cmp -s "$out/seq/s${seed}_YARD-${yard}.mcap" "$out/ray/$id/run.mcap"
    cmp -s "$out/seq/s${seed}_YARD-${yard}.mcap" "$out/ray-up/$id/run.mcap"
  done
done
echo "all 16 recordings identical across the four ways (throughput: sequential time / engine time)"
