#!/usr/bin/env bash
# The camera issue's speed target, measured against this machine's speed at the time: each
# round runs Intel Embree on the reference ray-casting scene (`../shared/perf`, through the
# `embreex` package, one thread) and then the camera benchmark world with and without sun
# shadows (`passerby bench --simulate 10 --threads 2`), and the world without shadows on one
# thread. Shared machines drift by tens of percent within minutes: the anchor says how fast one
# core was in each round, and two threads against one how much the second core gave.
#
#   bash benches/camera_target.sh [ROUNDS]        (default 8; about a minute a round)
#
# Needs python3 with venv and pip (PyPI) for the anchor, in `target/anchor-venv`.
# Targets (issue 7): at least 2x real time without shadows, at least 1x with them.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-8}"
shared="../shared"
venv="target/anchor-venv"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet numpy embreex
fi
cargo build --release --quiet
bin="target/release/passerby"
rtf() {
    "$bin" --asset-cache "$shared/assets/mvsim-models" bench "benches/worlds/$1.world.xml" \
        --simulate 10 --threads "${2:-2}" 2>&1 | grep -o '[0-9.]*x real time' | cut -dx -f1
}
printf '%-8s %-14s %-12s %-12s %-12s\n' round 'embree Mray/s' 'no shadows' 'shadows' \
    '1 thread'
results=()
for round in $(seq "$rounds"); do
    embree=$(cd "$shared/perf" && "$OLDPWD/$venv/bin/python" anchor_raycast.py refscene.obj 2>&1 |
        grep -o 'embreex.*Mrays_per_s=[0-9.]*' | grep -o '[0-9.]*$')
    plain=$(rtf warehouse_cameras_noshadows)
    shadows=$(rtf warehouse_cameras)
    single=$(rtf warehouse_cameras_noshadows 1)
    printf '%-8s %-14s %-12s %-12s %-12s\n' "$round" "$embree" "$plain" "$shadows" "$single"
    results+=("$embree $plain $shadows $single")
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [list(map(float, line.split())) for line in sys.stdin if line.strip()]
for k, name, target in ((1, "without shadows", 2.0), (2, "with shadows", 1.0)):
    xs = [r[k] for r in rows]
    met = sum(x >= target for x in xs)
    print(f"{name}: {min(xs):.2f}-{max(xs):.2f}x real time, median {statistics.median(xs):.2f}x, "
          f"{met} of {len(xs)} runs at the {target:g}x target or more")
scaling = sorted(r[1] / r[3] for r in rows)
print(f"two threads against one (without shadows): {scaling[0]:.2f}-{scaling[-1]:.2f}x, "
      f"median {statistics.median(scaling):.2f}x")
'
