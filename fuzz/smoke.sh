#!/usr/bin/env bash
# A bounded fuzz run that CI can afford: each libFuzzer target for SECONDS (default 20) from
# seeds of the real files, with the limits of docs/limits.md (2 GB, 20 s per input) and inputs up
# to 64 kB. A crash, leak of time or memory fails the run; its input is in fuzz/artifacts/.
# usage: bash fuzz/smoke.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")"
per_target=${1:-20}
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --version 0.13.2
fi
# cargo-fuzz's instrumentation flags are nightly-only; the stable compiler accepts them with this.
export RUSTC_BOOTSTRAP=1
shared=../../shared
seeds=target/smoke-seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{load_world,sensors_record,mavs_scene,mavs_aux,expression,model,uri}
cp "$shared"/worlds/mvsim/mvsim_tutorial/*.world.xml ../examples/*.world.xml "$seeds/load_world/"
cp ../examples/*.world.xml ../crates/engine/tests/worlds/*.world.xml "$seeds/sensors_record/"
cp "$shared"/scenes/mavs/scenes/{brick_scene,cube_scene,obstacle_field}.json \
   "$shared"/scenes/mavs/sims/sensor_sims/*.json "$seeds/mavs_scene/"
i=0
for f in "$shared"/scenes/mavs/scenes/meshes/labels.json "$shared"/scenes/mavs/actors/actors/*.json \
         "$shared"/scenes/mavs/waypoints/*.json "$shared"/scenes/mavs/scenes/meshes/surface_textures/*.json; do
  kind=$(case "$f" in *labels*) echo 0;; *actors/*) echo 1;; *waypoints*) echo 2;; *) echo 3;; esac)
  { printf "\\x0$kind"; cat "$f"; } > "$seeds/mavs_aux/$i"; i=$((i + 1))
done
printf '1 + 2*x' > "$seeds/expression/0"
{ printf '\x03'; cat "$shared"/assets/characters/Walker.glb; } > "$seeds/model/0"
{ printf '\x02'; cat "$shared"/assets/characters/Walker.dae; } > "$seeds/model/1"
printf 'https://mrpt.github.io/mvsim-models/pallet.zip/pallet/pallet.dae' > "$seeds/uri/0"
cargo fuzz build -s none --release
for target in load_world sensors_record mavs_scene mavs_aux expression model uri; do
  # New inputs go to a corpus under target/; the committed one (corpus/) is read as seeds.
  mkdir -p "target/smoke-corpus/$target" "corpus/$target"
  log="target/smoke-$target.log"
  echo "== $target: $per_target s"
  if ! cargo fuzz run -s none --release "$target" "target/smoke-corpus/$target" "corpus/$target" \
      "$seeds/$target" -- -max_total_time="$per_target" -rss_limit_mb=2048 -timeout=20 \
      -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz target $target failed: the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$log" | tr '\n' ' '
  echo
done
