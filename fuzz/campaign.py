#!/usr/bin/env python3
"""The mutation campaign of issue 23: real inputs of every kind, mutated, through `passerby check`
then a 0.5 s `passerby run`, each process watched for panics, time and memory.

Kinds: MVSim worlds (the tutorial worlds and our examples), MVSim definition files (sensors and
vehicles, included by examples/sensor_rig.world.xml), MAVS scenes and simulation files, MAVS
auxiliary files (labels, layers, ANVEL trails, actor and waypoint files, keyframe lists) and 3D
models (glTF, FBX, Collada, OBJ, STL, placed in a world as an actor's and a block's visual).
Mutations: truncation, byte flips, removed closing tags, NaN/inf/negative/huge numbers put in
numeric values, self and fan-out includes, deep nesting (elements, expressions, JSON arrays),
JSON values of the wrong type, pasted snippets.

Every process must: not panic or abort, finish within 20 s, stay under 2 GB resident, and when it
refuses its input (exit 1), say where: every `error:` line must start with FILE:LINE:COL (JSON
errors also name the JSON path). The inputs that break a rule are kept under OUT/failures/.

usage: python3 fuzz/campaign.py [--per-kind 320] [--seed 1] [--jobs 2] [--out DIR]
       (builds target/release/passerby first if needed; run from the repository root)
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
BIN = ROOT / "target/release/passerby"
TIME_LIMIT = 20.0
RSS_LIMIT_KB = 2 * 1024 * 1024
NUMBERS = ["nan", "NaN", "inf", "-inf", "-1", "-0", "0", "1e308", "1e309", "-1e308", "1e9",
           "4294967296", "18446744073709551617", "1e-9", "1e-320", "99999999999999999999"]
SNIPPETS = ["<", ">", "</", "/>", "\"", "&", "&#x;", "${", "}", "$f{", "$f{1/0}", "$env{X}",
            "<!--", "<![CDATA[", "<for var=\"i\" from=\"0\" to=\"100000\">", "</for>",
            "<if condition=\"1\">", "\u00e9", "\u0000", "<block>", "<actor:class>",
            "<sensor class=\"camera\"><ncols>99999</ncols></sensor>"]


def run(cmd, cwd, scratch):
    """Runs cmd; returns (status, seconds, max RSS in KB, stderr). status: exit code, or
    -signal, or 'timeout'."""
    err_path = scratch / f"stderr-{threading.get_ident()}"
    with open(err_path, "wb") as err:
        start = time.monotonic()
        # Offline: a mutated URI must not send anything over the network.
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                             start_new_session=True, env={**os.environ, "PASSERBY_OFFLINE": "1"})
        status, rss = None, 0
        while True:
            pid, wstatus, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                rss = usage.ru_maxrss
                status = os.waitstatus_to_exitcode(wstatus)
                break
            if time.monotonic() - start > TIME_LIMIT:
                os.killpg(p.pid, signal.SIGKILL)
                _, _, usage = os.wait4(p.pid, 0)
                rss, status = usage.ru_maxrss, "timeout"
                break
            time.sleep(0.01)
        seconds = time.monotonic() - start
    text = err_path.read_text(errors="replace")
    err_path.unlink()
    return status, seconds, rss, text


POSITIONED = re.compile(r"^\S.*:\d+:\d+: error: ")


def verdict(status, seconds, rss, stderr):
    """The rules a process broke (empty: none)."""
    broken = []
    if status == "timeout":
        broken.append("over 20 s")
    elif status not in (0, 1, 2):
        broken.append(f"exit status {status}")
    if "panicked at" in stderr or "has overflowed its stack" in stderr:
        broken.append("panic")
    if rss > RSS_LIMIT_KB:
        broken.append(f"{rss // 1024} MB resident")
    if status == 1:
        unpositioned = [l for l in stderr.splitlines()
                        if "error: " in l and l.startswith("error: ")]
        if unpositioned:
            broken.append("refusal without a position: " + unpositioned[0][:200])
        elif not any(POSITIONED.match(l) for l in stderr.splitlines()):
            broken.append("refusal without an error line")
    return broken


# ---------------------------------------------------------------------------------------------
# Mutations


def numeric_spans(text):
    """Spans of numbers in element text, attribute values and JSON values."""
    return [m.span(1) for m in re.finditer(r"(?<![\w.])(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.])", text)]


def mutate_text(text, rng, kind, path_name):
    ops = ["truncate", "flip", "numbers", "snippet", "deep", "duplicate"]
    if kind in ("world", "definition"):
        ops += ["close", "close", "self_include", "fanout", "deep_expr", "numbers"]
    else:
        ops += ["wrong_type", "wrong_type", "numbers"]
    op = rng.choice(ops)
    extra = {}
    if op == "truncate":
        text = text[: rng.randrange(len(text) + 1)]
    elif op == "flip":
        b = bytearray(text.encode())
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        text = b.decode(errors="replace")
    elif op == "numbers":
        spans = numeric_spans(text)
        for _ in range(rng.randint(1, 4)):
            if spans:
                s, e = rng.choice(spans)
                value = rng.choice(NUMBERS)
                text = text[:s] + value + text[e:]
                spans = numeric_spans(text)
    elif op == "snippet":
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(SNIPPETS) + text[at:]
    elif op == "duplicate":
        a = rng.randrange(len(text) + 1)
        b = min(len(text), a + rng.randrange(1, 2000))
        at = rng.randrange(len(text) + 1)
        text = text[:at] + text[a:b] + text[at:]
    elif op == "close":
        closes = list(re.finditer(r"</[\w:]+>", text))
        if closes:
            m = rng.choice(closes)
            text = text[: m.start()] + text[m.end():]
    elif op == "self_include":
        at = text.find(">", text.find("<mvsim_world")) + 1
        text = text[:at] + f'<include file="{path_name}"/>' + text[at:]
    elif op == "fanout":
        extra = {f"fan{i}.xml": f'<include file="fan{i + 1}.xml"/><include file="fan{i + 1}.xml"/>'
                 for i in range(30)}
        extra["fan30.xml"] = "<variable name=\"F\" value=\"1\"/>"
        at = text.find(">", text.find("<mvsim_world")) + 1
        text = text[:at] + '<include file="fan0.xml"/>' + text[at:]
    elif op == "deep":
        n = rng.choice([300, 5000, 100000])
        at = rng.randrange(len(text) + 1)
        if kind in ("world", "definition"):
            text = text[:at] + "<a>" * n + "</a>" * n + text[at:]
        else:
            text = text[:at] + "[" * n + "]" * n + text[at:]
    elif op == "deep_expr":
        n = rng.choice([300, 9000, 100000])
        body = rng.choice(["(" * n + "1" + ")" * n, "-" * n + "1", "2^" * n + "1"])
        at = text.find(">", text.find("<mvsim_world")) + 1
        text = text[:at] + f'<variable name="DEEP" value="$f{{{body}}}"/>' + text[at:]
    elif op == "wrong_type":
        try:
            doc = json.loads(text)
            nodes = []

            def walk(v):
                if isinstance(v, dict):
                    for k in v:
                        nodes.append((v, k))
                        walk(v[k])
                elif isinstance(v, list):
                    for i in range(len(v)):
                        nodes.append((v, i))
                        walk(v[i])
            walk(doc)
            for _ in range(rng.randint(1, 3)):
                if nodes:
                    parent, key = rng.choice(nodes)
                    parent[key] = rng.choice([None, "text", -1, 1e308, [], {}, [1, "a"], {"x": 1}, True])
            text = json.dumps(doc, indent=1)
        except (ValueError, RecursionError):
            text = text[: len(text) // 2]
    return op, text, extra


def mutate_bytes(data, rng):
    op = rng.choice(["truncate", "flip", "flip", "duplicate", "zero"])
    b = bytearray(data)
    if op == "truncate":
        b = b[: rng.randrange(len(b) + 1)]
    elif op == "flip":
        for _ in range(rng.randint(1, 16)):
            if b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif op == "duplicate":
        a = rng.randrange(len(b) + 1)
        e = min(len(b), a + rng.randrange(1, 4096))
        at = rng.randrange(len(b) + 1)
        b[at:at] = b[a:e]
    elif op == "zero":
        a = rng.randrange(len(b) + 1)
        e = min(len(b), a + rng.randrange(1, 256))
        b[a:e] = bytes(e - a)
    return op, bytes(b)


# ---------------------------------------------------------------------------------------------
# Cases: (kind, description, files to write {path: bytes}, commands)


def setup(work):
    """Copies of the inputs whose neighbours (includes, meshes) must resolve."""
    shutil.copytree(SHARED / "worlds/mvsim", work / "mvsim")
    shutil.copytree(ROOT / "data/mvsim", work / "mvsim-data")
    shutil.copytree(SHARED / "scenes/mavs", work / "mavs", ignore=shutil.ignore_patterns("*.bmp"))
    shutil.copy(ROOT / "examples/mavs_rig.world.xml", work / "mavs_rig.world.xml")
    for w in (ROOT / "examples").glob("*.world.xml"):
        shutil.copy(w, work / "mvsim/mvsim_tutorial" / w.name)


def world_cases(rng, n, work):
    tutorial = work / "mvsim/mvsim_tutorial"
    bases = sorted(tutorial.glob("*.world.xml"))
    for i in range(n):
        base = rng.choice(bases)
        name = f"mut{i}.world.xml"
        op, text, extra = mutate_text(base.read_text(), rng, "world", name)
        files = {tutorial / name: text.encode()}
        files.update({tutorial / k: v.encode() for k, v in extra.items()})
        yield ("world", f"{base.name} {op}", files, [
            ["check", str(tutorial / name)],
            ["run", str(tutorial / name), "--duration", "0.5"],
        ])


def definition_cases(rng, n, work):
    defs = work / "mvsim-data/share/mvsim/definitions"
    used = ["jackal.vehicle.xml", "lidar2d.sensor.xml", "velodyne-vlp16.sensor.xml",
            "camera.sensor.xml", "rgbd_camera.sensor.xml", "imu.sensor.xml", "gnss.sensor.xml"]
    originals = {u: (defs / u).read_text() for u in used}
    for i in range(n):
        target = rng.choice(used)
        op, text, extra = mutate_text(originals[target], rng, "definition", target)
        # Each case gets its own data folder (the mutant replaces the real definition there).
        data = work / f"defs{i}"
        files = {data / "share/mvsim/definitions" / target: text.encode()}
        files.update({data / "share/mvsim/definitions" / k: v.encode() for k, v in extra.items()})
        rig = str(ROOT / "examples/sensor_rig.world.xml")
        yield ("definition", f"{target} {op}", files, [
            ["--mvsim-data", str(data), "check", rig],
            ["--mvsim-data", str(data), "run", rig, "--duration", "0.5"],
        ], (work / "mvsim-data", data))


def mavs_cases(rng, n, work):
    scenes = work / "mavs/scenes"
    bases = [scenes / "cube_scene.json", scenes / "obstacle_field.json", scenes / "brick_scene.json",
             scenes / "animations/animation_example_from_docs.json",
             work / "mavs/sims/sensor_sims/mrzr_cube_sim.json"]
    rig = str(work / "mavs_rig.world.xml")
    for i in range(n):
        base = rng.choice(bases)
        op, text, _ = mutate_text(base.read_text(), rng, "mavs", base.name)
        mutant = base.with_name(f"mut{i}.json")
        yield ("mavs scene", f"{base.name} {op}", {mutant: text.encode()}, [
            ["--rig", rig, "--mavs-data", str(work / "mavs"), "check", str(mutant)],
            ["--rig", rig, "--mavs-data", str(work / "mavs"), "run", str(mutant), "--duration", "0.5"],
        ])


def mavs_aux_cases(rng, n, work):
    mavs = work / "mavs"
    # (auxiliary file, the scene that reads it, extra flags)
    aux = [
        ("scenes/meshes/labels.json", "scenes/obstacle_field.json", []),
        ("scenes/meshes/surface_textures/road_surfaces.json", "scenes/obstacle_field.json", []),
        ("waypoints/vehicle2_pos_1.vprp", "scenes/obstacle_field.json", []),
        ("actors/actors/l200_actor_top_loop.json", "scenes/brick_scene.json", ["--mavs-actors"]),
        ("waypoints/spa_city_top_block.json", "scenes/brick_scene.json",
         ["--mavs-actors", "actors/actors/l200_actor_top_loop.json"]),
        ("actors/actors/lambo_actor_outer_loop.json", "scenes/brick_scene.json", ["--mavs-actors"]),
        ("waypoints/spa_city_outer_loop.json", "scenes/brick_scene.json",
         ["--mavs-actors", "actors/actors/lambo_actor_outer_loop.json"]),
    ]
    rig = str(work / "mavs_rig.world.xml")
    for i in range(n):
        rel, scene, flags = rng.choice(aux)
        original = (SHARED / "scenes/mavs" / rel)
        if not original.exists():
            continue
        text = original.read_text(errors="replace")
        op, text, _ = mutate_text(text, rng, "mavs", original.name)
        # Each case gets its own copy of the data folder's small files (meshes are linked).
        data = work / f"aux{i}"
        flag_args = []
        if flags == ["--mavs-actors"]:
            flag_args = ["--mavs-actors", str(data / rel)]
        elif flags:
            flag_args = [flags[0], str(data / flags[1])]
        yield ("mavs aux", f"{rel} {op}", {data / rel: text.encode()}, [
            ["--rig", rig, "--mavs-data", str(data), *flag_args, "check", str(data / scene)],
            ["--rig", rig, "--mavs-data", str(data), *flag_args, "run", str(data / scene),
             "--duration", "0.5"],
        ], (mavs, data))


MODEL_WORLD = """<mvsim_world version="1.0">
  <element class="horizontal_plane"><x_min>-5</x_min><x_max>5</x_max><y_min>-5</y_min><y_max>5</y_max></element>
  <block name="b"><init_pose>2 2 0</init_pose><shape><pt>0 0</pt><pt>1 0</pt><pt>1 1</pt></shape>
    <visual><model_uri>{model}</model_uri></visual></block>
  <actor name="a"><init_pose>2 0 0</init_pose><animation_idle>Idle</animation_idle><animation_walk>Walk</animation_walk><animation_run>Run</animation_run>
    <visual><model_uri>{model}</model_uri></visual>
    <path loop="true"><waypoint>3 0 0</waypoint><waypoint>2 0 180</waypoint></path></actor>
  <sensor class="lidar3d" name="l"><pose_3d>0 0 1 0 0 0</pose_3d><vert_nrays>8</vert_nrays><horz_nrays>360</horz_nrays></sensor>
  <sensor class="camera" name="c"><pose_3d>0 0 1 0 0 0</pose_3d><ncols>160</ncols><nrows>120</nrows></sensor>
</mvsim_world>
"""


def model_cases(rng, n, work):
    models = [p for p in [
        *sorted((SHARED / "assets/characters").glob("Walker.*")),
        SHARED / "assets/samples/CesiumMan.glb",
        *sorted((SHARED / "assets/samples/collada").glob("*.dae")),
        *sorted((SHARED / "assets/samples/fbx").glob("*.fbx")),
        *sorted((SHARED / "worlds/mvsim/models").glob("*.dae")),
        *sorted((SHARED / "scenes/mavs/scenes/meshes/misc").glob("*.obj"))[:3],
    ] if p.is_file() and p.suffix.lower() != ".json" and p.stat().st_size < 4_000_000]
    stl = sorted((SHARED / "assets").rglob("*.stl"))[:2]
    models += stl
    for i in range(n):
        base = rng.choice(models)
        op, data = mutate_bytes(base.read_bytes(), rng)
        folder = work / f"model{i}"
        mutant = folder / ("mut" + base.suffix)
        world = folder / "model.world.xml"
        files = {mutant: data, world: MODEL_WORLD.format(model=mutant).encode()}
        yield ("model", f"{base.name} {op}", files, [
            ["check", str(world)],
            ["run", str(world), "--duration", "0.5"],
        ])


# ---------------------------------------------------------------------------------------------


def execute(case, scratch):
    kind, what, files, commands = case[:4]
    template = case[4] if len(case) > 4 else None
    if template:
        src, dst = template
        shutil.copytree(src, dst, symlinks=True,
                        ignore=shutil.ignore_patterns("*.obj", "*.mtl", "*.stl", "*.dae", "*.bmp"))
        # Large mesh folders are linked, not copied.
        for mesh in src.rglob("*"):
            if mesh.suffix.lower() in (".obj", ".mtl", ".stl", ".dae"):
                link = dst / mesh.relative_to(src)
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.exists():
                    link.symlink_to(mesh)
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    results = []
    for cmd in commands:
        out = scratch / f"out-{threading.get_ident()}.mcap"
        full = [str(BIN), "--asset-cache", str(SHARED / "assets/mvsim-models"), *cmd]
        if "run" in cmd:
            full += ["--out", str(out)]
        status, seconds, rss, stderr = run(full, ROOT, scratch)
        out.unlink(missing_ok=True)
        results.append((cmd[cmd.index("run") if "run" in cmd else cmd.index("check")],
                        status, seconds, rss, verdict(status, seconds, rss, stderr), stderr))
    return kind, what, files, results, template


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-kind", type=int, default=320)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "target/campaign")
    args = ap.parse_args()
    if not BIN.exists():
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    if args.out.exists():
        shutil.rmtree(args.out)
    work = args.out / "work"
    scratch = args.out / "scratch"
    failures = args.out / "failures"
    for d in (work, scratch, failures):
        d.mkdir(parents=True)
    setup(work)
    rng = random.Random(args.seed)
    cases = []
    for make in (world_cases, definition_cases, mavs_cases, mavs_aux_cases, model_cases):
        cases += list(make(random.Random(rng.random()), args.per_kind, work))
    stats = {}
    status2 = {}
    broken_cases = []
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for kind, what, files, results, template in pool.map(lambda c: execute(c, scratch), cases):
            s = stats.setdefault(kind, {"cases": 0, "refused": 0, "ran": 0, "max_s": 0.0,
                                        "max_rss": 0, "broken": 0, "ops": {}})
            s["cases"] += 1
            op = what.split()[-1]
            s["ops"][op] = s["ops"].get(op, 0) + 1
            check_status = results[0][1]
            s["refused"] += check_status == 1
            s["ran"] += len(results) > 1 and results[1][1] == 0
            for name, status, seconds, rss, broken, stderr in results:
                if status == 2:
                    # Run-time errors (not refusals of the input): tallied to be read.
                    first = next((l for l in stderr.splitlines() if l.startswith("error: ")), "?")
                    first = re.sub(r"\d+", "N", re.sub(r"/\S+", "PATH", first))[:120]
                    status2[first] = status2.get(first, 0) + 1
                if seconds > s["max_s"]:
                    s["slowest"] = f"{what} ({name})"
                s["max_s"] = max(s["max_s"], seconds)
                s["max_rss"] = max(s["max_rss"], rss)
                if broken:
                    s["broken"] += 1
                    n = len(broken_cases)
                    keep = failures / f"{n:04d}"
                    keep.mkdir()
                    for path, data in files.items():
                        (keep / path.name).write_bytes(data)
                    (keep / "report.txt").write_text(
                        f"{kind}: {what}\n{name}: status {status}, {seconds:.2f} s, {rss} KB\n"
                        f"broken: {broken}\n\n{stderr[-5000:]}")
                    broken_cases.append((kind, what, name, broken))
            if template:
                shutil.rmtree(template[1], ignore_errors=True)
    print(f"{sum(s['cases'] for s in stats.values())} cases, "
          f"{time.monotonic() - started:.0f} s wall, {args.jobs} jobs, seed {args.seed}")
    print(f"{'kind':<12} {'cases':>6} {'refused':>8} {'ran 0.5 s':>10} {'max s':>7} {'max MB':>7} {'broken':>7}")
    for kind, s in stats.items():
        print(f"{kind:<12} {s['cases']:>6} {s['refused']:>8} {s['ran']:>10} {s['max_s']:>7.2f} "
              f"{s['max_rss'] // 1024:>7} {s['broken']:>7}")
        print(f"  mutations: {', '.join(f'{k} {v}' for k, v in sorted(s['ops'].items()))}")
        print(f"  slowest: {s.get('slowest', '-')}")
    for message, n in sorted(status2.items(), key=lambda kv: -kv[1])[:15]:
        print(f"exit 2 ({n}x): {message}")
    for kind, what, name, broken in broken_cases[:50]:
        print(f"BROKEN {kind}: {what} ({name}): {'; '.join(broken)}")
    print(f"failing inputs kept in {failures}" if broken_cases else "no rule broken")
    return 1 if broken_cases else 0


if __name__ == "__main__":
    sys.exit(main())
