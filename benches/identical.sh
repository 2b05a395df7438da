#!/usr/bin/env bash
# Byte-for-byte outputs across a refactoring: recordings, dumps and renders of the example
# worlds, the benchmark worlds, three MAVS scenes and MVSim's turtlebot world's camera, hashed.
#
#   bash benches/identical.sh            # compare with benches/identical.sha256
#   bash benches/identical.sh --bless    # write benches/identical.sha256 (on the commit before)
#   PASSERBY_BIN=/tmp/before bash benches/identical.sh --bless   # a binary built before
#
# Uses the release build; two threads (outputs are the same for any count, which the tests
# check). Offline, with the bundled model mirror, so every machine sees the same assets.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${PASSERBY_BIN:-}" ]; then
  bin="$PASSERBY_BIN"
else
  cargo build --release --quiet
  bin="$PWD/target/release/passerby"
fi
out="${TMPDIR:-/tmp}/passerby-identical"
rm -rf "$out" && mkdir -p "$out"
pb() { "$bin" --offline --quiet --asset-cache ../shared/assets/mvsim-models "$@"; }
for w in examples/actors.world.xml examples/sensor_rig.world.xml; do
  n=$(basename "$w" .world.xml)
  pb run "$w" --duration 2 --threads 2 --out "$out/$n.mcap" --dump "$out/$n.dump"
done
for w in benches/worlds/warehouse_*.world.xml; do
  n=$(basename "$w" .world.xml)
  pb run "$w" --duration 0.5 --threads 2 --out "$out/$n.mcap"
done
for s in obstacle_field brick_scene cube_scene; do
  pb --rig examples/mavs_rig.world.xml run "../shared/scenes/mavs/scenes/$s.json" \
    --duration 1 --threads 2 --out "$out/$s.mcap" --dump "$out/$s.dump"
done
pb render examples/sensor_rig.world.xml --sensor r1/cam --time 1 --out "$out/render_cam"
pb render examples/sensor_rig.world.xml --sensor r1/rgbd --time 1 --out "$out/render_rgbd"
# A 1920 x 1080 camera under an open sky, its shadow rays answered from the sun's grid.
pb render ../shared/worlds/mvsim/mvsim_tutorial/demo_turtlebot_world.world.xml --sensor r1/camera1 \
  --time 1 --out "$out/render_turtlebot"
# Grass placed as instances, turned and scaled: a camera's packets through a million of them
# (the meadow) and through a few thousand (grass_dense), and the lidar's.
for s in veg_override_test_scene_grass_only grass_dense; do
  pb --rig examples/mavs_rig.world.xml run "../shared/scenes/mavs/scenes/$s.json" \
    --duration 0.25 --threads 2 --out "$out/$s.mcap"
done
manifest="$out.sha256"
(cd "$out" && find . -type f | LC_ALL=C sort | xargs sha256sum) > "$manifest"
if [ "${1:-}" = "--bless" ]; then
  cp "$manifest" benches/identical.sha256
  echo "wrote benches/identical.sha256 ($(wc -l < "$manifest") files)"
elif diff -u benches/identical.sha256 "$manifest"; then
  echo "identical: $(wc -l < "$manifest") files"
else
  echo "outputs differ from benches/identical.sha256" >&2
  exit 1
fi
