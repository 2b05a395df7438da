// The live view: connects to passerby's Foxglove WebSocket server (the Foxglove SDK's
// `foxglove.sdk.v1` protocol), decodes ROS 2 messages with their schemas (cdr.js), keeps the
// transform tree, and draws on 2D canvases: lidar points coloured by label, actors' boxes and
// skeletons, vehicles, and one camera image. Drag to orbit, wheel to zoom.
import { decode, parseDefinition } from "./cdr.js";

const stats = { messages: 0, clouds: 0, points: 0, images: 0, markers: 0, time: 0, connected: false };
window.passerbyStats = stats;

const channels = new Map(); // channel id -> { topic, parsed }
const subscriptions = new Map(); // subscription id -> channel
const services = new Map(); // name -> id
const frames = new Map(); // child -> { parent, t: [x,y,z], q: [x,y,z,w] }
const clouds = new Map(); // topic -> { frame, points: Float32Array xyz, colours: Uint8Array rgb }
let markers = []; // { kind: "box"|"lines", ... } in the map frame
let imageTopic = null;

// The colour of an id, as `passerby render` draws it (images.rs: id_colour).
function idColour(id) {
  if (!id) return [90, 96, 104];
  const h = Math.imul(id, 0x9e3779b1) >>> 0;
  return [h >>> 24, (h >>> 16) & 255, (h >>> 8) & 255].map((c) => 64 + (c % 192));
}

// --- transforms -----------------------------------------------------------------------------
function rotate(q, v) {
  const [x, y, z, w] = q;
  const [vx, vy, vz] = v;
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
}
function qmul(a, b) {
  const [ax, ay, az, aw] = a, [bx, by, bz, bw] = b;
  return [aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz];
}
// map_from_frame as { t, q }, or null while a link is missing.
function mapFrom(frame) {
  let t = [0, 0, 0], q = [0, 0, 0, 1];
  for (let f = frame, hops = 0; f !== "map"; hops++) {
    const link = frames.get(f);
    if (!link || hops > 32) return null;
    // parent_from_child composed on the left: p = R_l * (R q ... ) + t_l
    t = rotate(link.q, t).map((c, i) => c + link.t[i]);
    q = qmul(link.q, q);
    f = link.parent;
  }
  return { t, q };
}
function onTf(msg) {
  for (const tf of msg.transforms) {
    const { translation: t, rotation: r } = tf.transform;
    frames.set(tf.child_frame_id, { parent: tf.header.frame_id, t: [t.x, t.y, t.z], q: [r.x, r.y, r.z, r.w] });
  }
}

// --- messages -------------------------------------------------------------------------------
function onCloud(topic, msg) {
  const field = (name) => msg.fields.find((f) => f.name === name);
  const fx = field("x"), fy = field("y"), fz = field("z"), fl = field("label") ?? field("instance");
  const n = msg.width * msg.height, step = msg.point_step;
  const view = new DataView(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength);
  const points = new Float32Array(n * 3), colours = new Uint8Array(n * 3);
  const readId = (o) => !fl ? 0 : fl.datatype === 4 ? view.getUint16(o + fl.offset, true)
    : fl.datatype === 5 ? view.getInt32(o + fl.offset, true) : fl.datatype === 6 ? view.getUint32(o + fl.offset, true) : 0;
  for (let i = 0; i < n; i++) {
    const o = i * step;
    points[3 * i] = view.getFloat32(o + fx.offset, true);
    points[3 * i + 1] = view.getFloat32(o + fy.offset, true);
    points[3 * i + 2] = view.getFloat32(o + fz.offset, true);
    colours.set(idColour(readId(o)), 3 * i);
  }
  clouds.set(topic, { frame: msg.header.frame_id, points, colours });
  stats.clouds++;
  stats.points = n;
}
function onMarkers(msg) {
  markers = [];
  for (const m of msg.markers) {
    if (m.action !== 0) continue;
    const c = [m.color.r, m.color.g, m.color.b].map((v) => Math.round(v * 255));
    const pose = { t: [m.pose.position.x, m.pose.position.y, m.pose.position.z],
      q: [m.pose.orientation.x, m.pose.orientation.y, m.pose.orientation.z, m.pose.orientation.w] };
    // CUBE and CYLINDER (actors' capsules) are drawn by their outline.
    if (m.type === 1 || m.type === 3) markers.push({ kind: m.type === 1 ? "box" : "cylinder", frame: m.header.frame_id, pose, size: [m.scale.x, m.scale.y, m.scale.z], colour: c });
    if (m.type === 5) markers.push({ kind: "lines", frame: m.header.frame_id, pose, points: m.points.map((p) => [p.x, p.y, p.z]), colour: c });
  }
  stats.markers = markers.length;
}
function onImage(topic, msg) {
  const canvas = document.getElementById("image");
  if (canvas.width !== msg.width || canvas.height !== msg.height) [canvas.width, canvas.height] = [msg.width, msg.height];
  const ctx = canvas.getContext("2d");
  const img = ctx.createImageData(msg.width, msg.height);
  const channelsPerPixel = msg.encoding === "rgba8" ? 4 : 3;
  for (let i = 0, n = msg.width * msg.height; i < n; i++) {
    img.data[4 * i] = msg.data[channelsPerPixel * i];
    img.data[4 * i + 1] = msg.data[channelsPerPixel * i + 1];
    img.data[4 * i + 2] = msg.data[channelsPerPixel * i + 2];
    img.data[4 * i + 3] = 255;
  }
  ctx.putImageData(img, 0, 0);
  document.getElementById("image-topic").textContent = topic;
  stats.images++;
}

// --- the connection -------------------------------------------------------------------------
const config = await (await fetch("config.json")).json();
const ws = new WebSocket(`ws://${location.hostname}:${config.port}`, ["foxglove.sdk.v1"]);
ws.binaryType = "arraybuffer";
let nextSubscription = 1, nextCall = 1;

// Lidar clouds, not RGB-D cameras' (a camera's hundreds of thousands of points a frame would
// swamp the page): an RGB-D camera `X` also has `X_depth/...` or `X_rgb/...` topics.
function isLidarCloud(topic, all) {
  if (!topic.endsWith("_points")) return false;
  const sensor = topic.slice(0, -"_points".length);
  return !all.some((c) => c.topic.startsWith(`${sensor}_depth/`) || c.topic.startsWith(`${sensor}_rgb/`));
}

function wanted(c, all) {
  if (isLidarCloud(c.topic, all) || c.topic === "/tf" || c.topic === "/tf_static") return true;
  if (c.topic === "/ground_truth/actor_markers") return true;
  if (!imageTopic && c.topic.endsWith("/image_raw") && !c.topic.includes("_depth")) {
    imageTopic = c.topic;
    return true;
  }
  return false;
}

ws.onopen = () => (stats.connected = true);
ws.onclose = () => (stats.connected = false);
ws.onmessage = (event) => {
  if (typeof event.data === "string") {
    const msg = JSON.parse(event.data);
    if (msg.op === "advertise") {
      const subs = [];
      for (const c of msg.channels) {
        if (c.encoding !== "cdr") continue;
        channels.set(c.id, { topic: c.topic, parsed: parseDefinition(c.schemaName, c.schema) });
        if (wanted(c, msg.channels)) {
          const id = nextSubscription++;
          subscriptions.set(id, channels.get(c.id));
          subs.push({ id, channelId: c.id });
        }
      }
      if (subs.length) ws.send(JSON.stringify({ op: "subscribe", subscriptions: subs }));
    } else if (msg.op === "advertiseServices") {
      for (const s of msg.services) services.set(s.name, s.id);
    }
    return;
  }
  const view = new DataView(event.data);
  const op = view.getUint8(0);
  if (op === 1) {
    const channel = subscriptions.get(view.getUint32(1, true));
    if (!channel) return;
    stats.messages++;
    const msg = decode(channel.parsed, new Uint8Array(event.data, 13));
    const topic = channel.topic;
    if (topic === "/tf" || topic === "/tf_static") onTf(msg);
    else if (topic.endsWith("_points")) onCloud(topic, msg);
    else if (topic === "/ground_truth/actor_markers") onMarkers(msg);
    else if (topic === imageTopic) onImage(topic, msg);
  } else if (op === 2) {
    stats.time = Number(view.getBigUint64(1, true)) * 1e-9;
    document.getElementById("time").textContent = `t = ${stats.time.toFixed(2)} s`;
  }
};

function call(name, request) {
  const id = services.get(name);
  if (id === undefined) return;
  const encoding = new TextEncoder().encode("json");
  const payload = new TextEncoder().encode(JSON.stringify(request));
  const out = new Uint8Array(1 + 4 + 4 + 4 + encoding.length + payload.length);
  const view = new DataView(out.buffer);
  view.setUint8(0, 2);
  view.setUint32(1, id, true);
  view.setUint32(5, nextCall++, true);
  view.setUint32(9, encoding.length, true);
  out.set(encoding, 13);
  out.set(payload, 13 + encoding.length);
  ws.send(out);
}
document.getElementById("play").onclick = () => call("/passerby/resume", {});
document.getElementById("pause").onclick = () => call("/passerby/pause", {});
document.getElementById("step").onclick = () => call("/passerby/step", { steps: 1 });

// --- drawing --------------------------------------------------------------------------------
const canvas = document.getElementById("scene");
const orbit = { yaw: -2.2, pitch: 0.6, distance: 18, target: [0, 0, 0] };
canvas.onmousedown = (e) => {
  const start = { x: e.clientX, y: e.clientY, yaw: orbit.yaw, pitch: orbit.pitch };
  window.onmousemove = (m) => {
    orbit.yaw = start.yaw - (m.clientX - start.x) * 0.01;
    orbit.pitch = Math.max(0.05, Math.min(1.5, start.pitch + (m.clientY - start.y) * 0.01));
  };
  window.onmouseup = () => (window.onmousemove = null);
};
canvas.onwheel = (e) => {
  orbit.distance = Math.max(2, Math.min(200, orbit.distance * Math.exp(e.deltaY * 0.001)));
  e.preventDefault();
};

function projector(width, height) {
  const [cy, sy, cp, sp] = [Math.cos(orbit.yaw), Math.sin(orbit.yaw), Math.cos(orbit.pitch), Math.sin(orbit.pitch)];
  const eye = [orbit.target[0] + orbit.distance * cp * cy, orbit.target[1] + orbit.distance * cp * sy, orbit.target[2] + orbit.distance * sp];
  const f = height / (2 * Math.tan(0.5)); // ~57 degree vertical field of view
  return (p) => {
    const d = [p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]];
    // Camera axes: forward towards the target, right, up.
    const fwd = [-cp * cy, -cp * sy, -sp], right = [-sy, cy, 0], up = [-sp * cy, -sp * sy, cp];
    const z = d[0] * fwd[0] + d[1] * fwd[1] + d[2] * fwd[2];
    if (z < 0.1) return null;
    const x = d[0] * right[0] + d[1] * right[1];
    const y = d[0] * up[0] + d[1] * up[1] + d[2] * up[2];
    return [width / 2 + (f * x) / z, height / 2 - (f * y) / z];
  };
}

function draw() {
  const width = (canvas.width = canvas.clientWidth), height = (canvas.height = canvas.clientHeight);
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.fillStyle = "#15171a";
  ctx.fillRect(0, 0, width, height);
  const project = projector(width, height);
  // Ground grid, 1 m.
  ctx.strokeStyle = "#2a2e34";
  ctx.beginPath();
  for (let i = -20; i <= 20; i++) {
    for (const [a, b] of [[[i, -20, 0], [i, 20, 0]], [[-20, i, 0], [20, i, 0]]]) {
      const [pa, pb] = [project(a), project(b)];
      if (pa && pb) { ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); }
    }
  }
  ctx.stroke();
  // Clouds, in the map frame through the transform tree.
  const img = ctx.getImageData(0, 0, width, height);
  for (const cloud of clouds.values()) {
    const pose = mapFrom(cloud.frame);
    if (!pose) continue;
    for (let i = 0; i < cloud.points.length / 3; i++) {
      const p = rotate(pose.q, [cloud.points[3 * i], cloud.points[3 * i + 1], cloud.points[3 * i + 2]]).map((c, k) => c + pose.t[k]);
      const s = project(p);
      if (!s) continue;
      const [x, y] = [Math.round(s[0]), Math.round(s[1])];
      if (x < 0 || y < 0 || x >= width || y >= height) continue;
      const o = 4 * (y * width + x);
      img.data[o] = cloud.colours[3 * i];
      img.data[o + 1] = cloud.colours[3 * i + 1];
      img.data[o + 2] = cloud.colours[3 * i + 2];
    }
  }
  ctx.putImageData(img, 0, 0);
  // Actors' boxes and skeletons.
  for (const m of markers) {
    const frame = m.frame === "map" ? { t: [0, 0, 0], q: [0, 0, 0, 1] } : mapFrom(m.frame);
    if (!frame) continue;
    const toMap = (p) => rotate(frame.q, rotate(m.pose.q, p).map((c, k) => c + m.pose.t[k])).map((c, k) => c + frame.t[k]);
    ctx.strokeStyle = `rgb(${m.colour.join(",")})`;
    ctx.beginPath();
    const segment = (a, b) => {
      const [pa, pb] = [project(toMap(a)), project(toMap(b))];
      if (pa && pb) { ctx.moveTo(pa[0], pa[1]); ctx.lineTo(pb[0], pb[1]); }
    };
    if (m.kind === "box") {
      const [hx, hy, hz] = m.size.map((s) => s / 2);
      const c = [];
      for (const x of [-hx, hx]) for (const y of [-hy, hy]) for (const z of [-hz, hz]) c.push([x, y, z]);
      for (const [a, b] of [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]]) segment(c[a], c[b]);
    } else if (m.kind === "cylinder") {
      const [rx, ry, hz] = [m.size[0] / 2, m.size[1] / 2, m.size[2] / 2];
      const ring = (k, z) => [rx * Math.cos((k * Math.PI) / 8), ry * Math.sin((k * Math.PI) / 8), z];
      for (let k = 0; k < 16; k++) {
        segment(ring(k, -hz), ring(k + 1, -hz));
        segment(ring(k, hz), ring(k + 1, hz));
        if (k % 4 === 0) segment(ring(k, -hz), ring(k, hz));
      }
    } else {
      for (let i = 0; i + 1 < m.points.length; i += 2) segment(m.points[i], m.points[i + 1]);
    }
    ctx.stroke();
  }
  // Vehicles: an arrow at each base_link.
  ctx.fillStyle = "#f0c040";
  for (const frame of frames.keys()) {
    if (!frame.endsWith("/base_link")) continue;
    const pose = mapFrom(frame);
    if (!pose) continue;
    const tip = project(rotate(pose.q, [0.6, 0, 0]).map((c, k) => c + pose.t[k]));
    const left = project(rotate(pose.q, [-0.3, 0.3, 0]).map((c, k) => c + pose.t[k]));
    const right = project(rotate(pose.q, [-0.3, -0.3, 0]).map((c, k) => c + pose.t[k]));
    if (!tip || !left || !right) continue;
    ctx.beginPath();
    ctx.moveTo(tip[0], tip[1]);
    ctx.lineTo(left[0], left[1]);
    ctx.lineTo(right[0], right[1]);
    ctx.fill();
  }
  document.getElementById("stats").textContent = stats.connected
    ? `${stats.messages} messages, ${stats.points} points, ${stats.markers} markers, ${stats.images} images`
    : "disconnected";
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
