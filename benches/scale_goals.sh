#!/usr/bin/env bash
# Issue 29's goals ("speed at scale"), measured side by side on this machine: each round runs,
# one after the other, a reference build of Passerby (a commit, built once in a git worktree
# under target/), this checkout's release build, and native Embree's best mode on the
# reference scan (when libembree-dev is installed). The machines are shared and drift by tens
# of percent within minutes, so only ratios within a round, and medians over rounds, mean
# anything.
#
#   bash benches/scale_goals.sh [ROUNDS] [REFERENCE]   (defaults: 3 rounds, 77dc9d6: the build
#                                                       of when the issue was filed)
#
# Prints one line per benchmark and build each round, then a table of medians:
#   walkers   warehouse_walkers, VLP-16 + OS1-128 + 20 walkers, 2 threads (goal 10x real time)
#   cameras   warehouse_cameras, the above + two 640 x 480 cameras, 2 threads (goal 1.5x the
#             filed build's real-time factor)
#   turtlebot MVSim's demo_turtlebot_world, a 1920 x 1080 camera at 30 Hz (goal 1x, 2x moonshot)
#   meadow    MAVS's veg_override_test_scene_grass_only, a million grass meshes, with
#             examples/mavs_rig.world.xml (goal 1x real time, < 2 GB, loaded in < 10 s)
#   grass     MAVS's grass_dense with the same rig (goal 5x real time)
#   refscene  the reference lidar scan, 1 and 2 threads, M rays/s (goal Embree's best mode,
#             coherent 16-ray packets over 4 x 4 tiles: `../shared/perf/embree_anchor.c`)
# The filed build predates the meadow's million instances (it needed minutes): meadow and
# grass run for this checkout only.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
reference="${2:-77dc9d6}"
shared="$PWD/../shared"
cargo build --release --quiet
now="$PWD/target/release/passerby"

# The reference build, once per commit.
ref_dir="$PWD/target/scale-goals-reference-$reference"
ref="$ref_dir/target/release/passerby"
if [ ! -x "$ref" ]; then
    rm -rf "$ref_dir"
    git worktree prune
    git worktree add --detach --force "$ref_dir" "$reference" >/dev/null
    (cd "$ref_dir" && cargo build --release --quiet -p passerby)
fi

# Embree's anchor, when the library is there (a benchmark dependency only).
embree=""
if [ -f /usr/include/embree3/rtcore.h ]; then
    embree="$PWD/target/embree_anchor"
    if [ ! -x "$embree" ]; then
        gcc -O3 -march=native -fopenmp "$shared/perf/embree_anchor.c" -o "$embree" \
            -lembree3 -lm
    fi
else
    echo "(no libembree-dev: 'apt-get install -y libembree-dev' adds Embree's figures)"
fi

# `pb BIN ARGS...`: one bench run, offline, with the bundled model mirror and MVSim data.
pb() {
    local bin="$1"
    shift
    "$bin" --offline --asset-cache "$shared/assets/mvsim-models" --mvsim-data "$PWD/data/mvsim" \
        bench "$@" 2>&1
}
rtf() { grep -o '[0-9.]*x real time' | head -1 | cut -dx -f1; }
# The figure with raw normals (as Embree returns hits) where the build prints one.
rays() {
    local out
    out=$(cat)
    { echo "$out" | grep -o '[0-9.]* Mrays/s with raw' || echo "$out" | grep -o '[0-9.]* Mrays/s'; } |
        head -1 | cut -d' ' -f1
}

worlds=(
    "walkers|benches/worlds/warehouse_walkers.world.xml --simulate 10 --threads 2"
    "cameras|benches/worlds/warehouse_cameras.world.xml --simulate 10 --threads 2"
    "turtlebot|$shared/worlds/mvsim/mvsim_tutorial/demo_turtlebot_world.world.xml --simulate 4 --threads 2"
)
mavs=(
    "meadow|$shared/scenes/mavs/scenes/veg_override_test_scene_grass_only.json --rig examples/mavs_rig.world.xml --simulate 2 --threads 2"
    "grass|$shared/scenes/mavs/scenes/grass_dense.json --rig examples/mavs_rig.world.xml --simulate 5 --threads 2"
)
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
record() { echo "$round $1 $2 $3" >>"$results"; printf '%-6s %-10s %-10s %s\n' "$round" "$1" "$2" "$3"; }

for round in $(seq "$rounds"); do
    for entry in "${worlds[@]}"; do
        name="${entry%%|*}"
        # shellcheck disable=SC2086
        record "$name" reference "$(pb "$ref" ${entry#*|} | rtf)"
        # shellcheck disable=SC2086
        record "$name" now "$(pb "$now" ${entry#*|} | rtf)"
    done
    for entry in "${mavs[@]}"; do
        name="${entry%%|*}"
        # shellcheck disable=SC2086
        out=$(pb "$now" ${entry#*|})
        # The peak resident size, as the bench prints it (loading and building included).
        record "$name-MiB" now "$(echo "$out" | grep -o 'peak resident memory: [0-9]*' | grep -o '[0-9]*$')"
        record "$name" now "$(echo "$out" | rtf)"
    done
    for threads in 1 2; do
        record "refscene-$threads" reference \
            "$(pb "$ref" "$shared/perf/refscene.world.xml" --scans 40 --threads "$threads" | rays)"
        record "refscene-$threads" now \
            "$(pb "$now" "$shared/perf/refscene.world.xml" --scans 40 --threads "$threads" | rays)"
        if [ -n "$embree" ]; then
            record "refscene-$threads" embree "$(cd "$shared/perf" && "$embree" refscene.obj \
                --threads "$threads" --quality high --mode p16_4x4_coh --scans 40 2>&1 |
                grep -o 'Mrays_per_s=[0-9.]*' | head -1 | cut -d= -f2)"
        fi
    done
done

python3 - "$results" <<'EOF'
# Medians of each build's figures, and of the ratios measured within each round (the pairs
# ran side by side), with their range.
import statistics, sys
runs, names = {}, []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) != 4:
        continue
    try:
        value = float(parts[3])
    except ValueError:
        continue
    rnd, name, build = parts[:3]
    runs.setdefault((name, build), {})[rnd] = value
    if name not in names:
        names.append(name)
def med(name, build):
    values = list(runs.get((name, build), {}).values())
    return statistics.median(values) if values else None
def ratios(name, over):
    now, base = runs.get((name, "now"), {}), runs.get((name, over), {})
    return [now[r] / base[r] for r in now if base.get(r)]
def show(v):
    return f"{v:10.2f}" if v is not None else f"{'':>10}"
print()
print(f"{'benchmark':<12} {'reference':>10} {'now':>10} {'embree':>10}"
      "  ratio within rounds: median (range)")
for name in names:
    ref, now, emb = med(name, "reference"), med(name, "now"), med(name, "embree")
    over = "embree" if emb is not None else "reference"
    pairs = ratios(name, over)
    ratio = ""
    if pairs:
        what = "Embree's best mode" if over == "embree" else "the reference"
        ratio = f"{statistics.median(pairs):.2f}x {what} ({min(pairs):.2f}-{max(pairs):.2f})"
    print(f"{name:<12} {show(ref)} {show(now)} {show(emb)}  {ratio}")
print("(walkers, cameras, turtlebot, meadow, grass: x real time; refscene: M rays/s;"
      " *-MiB: peak resident MiB)")
EOF
