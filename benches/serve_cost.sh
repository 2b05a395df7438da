#!/usr/bin/env bash
# What serving costs: `passerby run` against `passerby serve` of the same world, both recording
# to MCAP, the served one with a Foxglove client subscribed to every topic and reading it all
# (crates/cli/tests/live/client.mjs drain), in interleaved pairs; and the latency from a step's
# end to the client receiving a point cloud (p50, p99), on loopback.
# usage: bash benches/serve_cost.sh [PAIRS] [SECONDS] [WORLD] [THREADS]
# The simulation (run and serve alike, with all their threads) is pinned to the first THREADS
# cores (default: all but one) and the client to the last core, so what is measured is the
# server's cost, not the client's CPU competing for the simulation's cores. THREADS equal to the
# number of cores shares them all (the client then competes).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-5}
seconds=${2:-10}
world=${3:-benches/worlds/warehouse_rgbd.world.xml}
cores=$(nproc)
threads=${4:-$(( cores > 1 ? cores - 1 : 1 ))}
sim_cores="0-$(( threads - 1 ))"
client_core=$(( cores - 1 ))
if [ "$threads" -lt "$cores" ]; then
  echo "simulation on cores $sim_cores (--threads $threads), client on core $client_core"
else
  sim_cores="0-$(( cores - 1 ))"
  echo "simulation on cores $sim_cores (--threads $threads), client sharing core $client_core"
fi
cargo build --release --quiet
bin=target/release/passerby
clients=target/bench-live-clients
mkdir -p "$clients"
cp crates/cli/tests/live/{package.json,package-lock.json,client.mjs} "$clients/"
[ -d "$clients/node_modules/@foxglove/ws-protocol" ] || (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--asset-cache ../shared/assets/mvsim-models --offline)
wall() { sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' | head -1; }
cpu() { awk '{ print $1 + $2 }' "$1"; }
for i in $(seq "$pairs"); do
  run=$(/usr/bin/time -f '%U %S' -o "$out/run.cpu" taskset -c "$sim_cores" "$bin" "${common[@]}" \
    run "$world" --duration "$seconds" --threads "$threads" --out "$out/run.mcap" | wall)
  /usr/bin/time -f '%U %S' -o "$out/serve.cpu" taskset -c "$sim_cores" "$bin" "${common[@]}" \
    serve "$world" --duration "$seconds" --threads "$threads" --realtime-factor 0 \
    --foxglove 0 --web off --out "$out/serve.mcap" > "$out/serve.out" 2> "$out/serve.err" &
  server=$!
  port=""
  while [ -z "$port" ]; do sleep 0.1; port=$(sed -n 's/^foxglove: ws:\/\/127.0.0.1://p' "$out/serve.err"); done
  # The server starts stepping at once; the client connects within a few tens of milliseconds.
  client=$(taskset -c "$client_core" node "$clients/client.mjs" drain "$port")
  wait "$server"
  serve=$(wall < "$out/serve.out")
  echo "pair $i: run ${run} s, serve ${serve} s (x$(echo "scale=3; $serve / $run" | bc));" \
    "cpu run $(cpu "$out/run.cpu") s, serve $(cpu "$out/serve.cpu") s; client: $client"
done
