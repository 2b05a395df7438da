// A client of `passerby serve` built only from libraries we did not write: Foxglove's
// WebSocket protocol client (@foxglove/ws-protocol over `ws`) and its ROS 2 message
// definitions parser and CDR reader/writer. Modes:
//   check PORT              decode a PointCloud2 and an Image, drive /r1/cmd_vel, see /r1/odom move,
//                           read and set parameters
//   lockstep PORT N         a closed-loop controller in lockstep: N times read odom, command, step
//   stall PORT SECONDS      subscribe to everything, then stop reading the socket
//   drain PORT              subscribe to everything and read it all until the server closes;
//                           the latency from each step's end to a point cloud's arrival
// Prints one JSON line of what it saw; exits non-zero when something is missing.
import wsProtocol from "@foxglove/ws-protocol";
import { parse } from "@foxglove/rosmsg";
import { MessageReader, MessageWriter } from "@foxglove/rosmsg2-serialization";
import { WebSocket } from "ws";

const { FoxgloveClient } = wsProtocol;

const [mode, port, arg] = process.argv.slice(2);
const TWIST = "geometry_msgs/msg/Twist";
const TWIST_DEF = "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular\n" +
  "================================================================================\n" +
  "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n";

function fail(why) {
  console.error(`client: ${why}`);
  process.exit(1);
}

// Closes the connection cleanly (the server sees a close, not a reset), then exits.
function finish(code) {
  ws.once("close", () => process.exit(code));
  client.close();
  setTimeout(() => process.exit(code), 1000).unref();
}
setTimeout(() => fail("timed out"), 60_000).unref();

// The Foxglove SDK's server speaks the ws-protocol under the name `foxglove.sdk.v1` (the
// client library's own name for it is the older `foxglove.websocket.v1`).
const ws = new WebSocket(`ws://127.0.0.1:${port}`, ["foxglove.sdk.v1", FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const channels = new Map(); // topic -> channel
const services = new Map(); // name -> service
const readers = new Map(); // subscription id -> { topic, reader }
const handlers = new Map(); // topic -> (message, logTime) => void
const calls = new Map(); // call id -> resolve
let nextCall = 1;
let ready;
const advertised = new Promise((resolve) => (ready = resolve));

client.on("error", (e) => fail(`websocket error: ${e}`));
client.on("advertise", (list) => {
  for (const c of list) channels.set(c.topic, c);
  ready();
});
client.on("advertiseServices", (list) => {
  for (const s of list) services.set(s.name, s);
});
client.on("message", ({ subscriptionId, timestamp, data }) => {
  const r = readers.get(subscriptionId);
  if (!r) return;
  const handler = handlers.get(r.topic);
  if (handler) handler(r.reader.readMessage(data), timestamp);
});
client.on("serviceCallResponse", ({ callId, data }) => {
  const resolve = calls.get(callId);
  calls.delete(callId);
  resolve?.({ ok: JSON.parse(new TextDecoder().decode(data)) });
});
client.on("serviceCallFailure", ({ callId, message }) => {
  const resolve = calls.get(callId);
  calls.delete(callId);
  resolve?.({ error: message });
});

const parameterReplies = new Map(); // request id -> resolve
const warnings = [];
const parameterUpdates = [];
client.on("parameterValues", ({ parameters, id }) => {
  if (id === undefined) parameterUpdates.push(...parameters);
  else parameterReplies.get(id)?.(parameters);
});
client.on("status", ({ message }) => warnings.push(message));

// The server's parameters: `names` read (all for none), or `values` set.
function parameters(id, { names, values }) {
  return new Promise((resolve) => {
    parameterReplies.set(id, resolve);
    if (values) client.setParameters(values, id);
    else client.getParameters(names, id);
  });
}

function subscribe(topic, handler) {
  const c = channels.get(topic);
  if (!c) fail(`no channel ${topic}; channels: ${[...channels.keys()].join(" ")}`);
  if (c.encoding !== "cdr" || c.schemaEncoding !== "ros2msg") fail(`${topic}: ${c.encoding}/${c.schemaEncoding}`);
  const reader = new MessageReader(parse(c.schema, { ros2: true }));
  readers.set(client.subscribe(c.id), { topic, reader });
  handlers.set(topic, handler);
}

function call(name, request) {
  const s = services.get(name);
  if (!s) fail(`no service ${name}; services: ${[...services.keys()].join(" ")}`);
  const callId = nextCall++;
  const data = new TextEncoder().encode(JSON.stringify(request));
  return new Promise((resolve) => {
    calls.set(callId, resolve);
    client.sendServiceCallRequest({ serviceId: s.id, callId, encoding: "json", data });
  });
}

function twistPublisher(topic) {
  const id = client.advertise({ topic, encoding: "cdr", schemaName: TWIST, schema: TWIST_DEF, schemaEncoding: "ros2msg" });
  const writer = new MessageWriter(parse(TWIST_DEF, { ros2: true }));
  return (vx, w) => client.sendMessage(id, writer.writeMessage({ linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: w } }));
}

const TRANSFORM_SET = "passerby_msgs/msg/TransformSet";
const TRANSFORM_SET_DEF = "string object\nstring part\ngeometry_msgs/Vector3 translation\n" +
  "geometry_msgs/Vector3 yaw_pitch_roll\ngeometry_msgs/Vector3 scale\nbool release\n" +
  "================================================================================\n" +
  "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n";

function transformPublisher() {
  const id = client.advertise({ topic: "/passerby/transforms", encoding: "cdr", schemaName: TRANSFORM_SET, schema: TRANSFORM_SET_DEF, schemaEncoding: "ros2msg" });
  const writer = new MessageWriter(parse(TRANSFORM_SET_DEF, { ros2: true }));
  const v = ([x, y, z]) => ({ x, y, z });
  return (object, part, t, release = false) => client.sendMessage(id, writer.writeMessage({
    object, part, translation: v(t), yaw_pitch_roll: v([0, 0, 0]), scale: v([1, 1, 1]), release,
  }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stampSeconds = (h) => h.stamp.sec + h.stamp.nanosec * 1e-9;

async function check() {
  await advertised;
  await sleep(200); // the rest of the advertisements
  const seen = { channels: [...channels.keys()].sort(), odom: [] };
  subscribe("/r1/vlp16_points", (m) => {
    seen.cloud ??= { points: m.width * m.height, fields: m.fields.map((f) => f.name), bytes: m.data.length, point_step: m.point_step, frame: m.header.frame_id };
  });
  subscribe("/r1/cam/image_raw", (m) => {
    seen.image ??= { width: m.width, height: m.height, encoding: m.encoding, bytes: m.data.length };
  });
  subscribe("/r1/odom", (m) => seen.odom.push([stampSeconds(m.header), m.pose.pose.position.x, m.pose.pose.position.y]));
  // Label images: the 32SC1 ids and their rgb8 colouring, compared at one stamp.
  const ids = new Map();
  const colours = new Map();
  const compare = () => {
    for (const [t, labelled] of ids) {
      const coloured = colours.get(t);
      if (coloured !== undefined && !seen.labels) seen.labels = { labelled, coloured };
    }
  };
  subscribe("/r1/cam/labels/instance", (m) => {
    const view = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    let labelled = 0;
    for (let i = 0; i < m.width * m.height; i++) if (view.getInt32(i * 4, true) > 0) labelled++;
    ids.set(stampSeconds(m.header), labelled);
    compare();
  });
  subscribe("/r1/cam/labels/instance_rgb", (m) => {
    if (m.encoding !== "rgb8") fail(`instance_rgb is ${m.encoding}`);
    let coloured = 0;
    for (let i = 0; i < m.width * m.height; i++) if (m.data[3 * i] || m.data[3 * i + 1] || m.data[3 * i + 2]) coloured++;
    colours.set(stampSeconds(m.header), coloured);
    compare();
  });
  subscribe("/tf_static", (m) => (seen.tf_static = m.transforms.length));
  const drive = twistPublisher("/r1/cmd_vel");
  const started = Date.now();
  while (Date.now() - started < 30_000) {
    drive(1.0, 0.0);
    await sleep(100);
    const last = seen.odom.at(-1);
    if (seen.cloud && seen.image && seen.tf_static && seen.labels && last && last[1] > 0.5) break;
  }
  seen.odom = [seen.odom[0], seen.odom.at(-1)];
  // A transform set (CDR, written by the ROS 2 message writer) holds the robot at (10, -3).
  const place = transformPublisher();
  const placed = Date.now();
  while (Date.now() - placed < 20_000) {
    place("r1", "", [10, -3, 0]);
    await sleep(100);
    const last = seen.odom.at(-1);
    if (last[1] > 9.99 && last[1] < 10.01) break;
  }
  seen.placed = seen.odom.at(-1);
  // Parameters: all of them, a change of pace (heard by subscribers), a refused change (with a
  // warning saying why).
  client.subscribeParameterUpdates(["realtime_factor"]);
  seen.parameters = {
    all: await parameters("all", { names: [] }),
    set: await parameters("set", { values: [{ name: "realtime_factor", value: 3, type: "float64" }] }),
    refused: await parameters("refused", { values: [{ name: "seed", value: 5 }] }),
  };
  await sleep(100);
  seen.parameters.warnings = warnings.filter((w) => w.includes("parameter"));
  seen.parameters.updates = parameterUpdates;
  console.log(JSON.stringify(seen));
  finish(seen.cloud && seen.image && seen.tf_static ? 0 : 1);
}

async function lockstep(iterations) {
  await advertised;
  while (!services.has("/passerby/step")) await sleep(20);
  let odom;
  subscribe("/r1/odom", (m) => (odom = { t: stampSeconds(m.header), x: m.pose.pose.position.x, y: m.pose.pose.position.y, q: m.pose.pose.orientation }));
  const drive = twistPublisher("/r1/cmd_vel");
  // The goal and a proportional controller on distance and bearing.
  const goal = [2.0, 1.0];
  let state = (await call("/passerby/step", { steps: 1 })).ok;
  const trace = [];
  for (let i = 0; i < iterations; i++) {
    // Wait for this step's odometry: lockstep answers once it is handed to the server.
    while (!odom || Math.abs(odom.t - state.time) > 1e-6) await sleep(1);
    const yaw = 2 * Math.atan2(odom.q.z, odom.q.w);
    const [dx, dy] = [goal[0] - odom.x, goal[1] - odom.y];
    let err = Math.atan2(dy, dx) - yaw;
    err = Math.atan2(Math.sin(err), Math.cos(err));
    const v = Math.min(0.8, Math.hypot(dx, dy)) * Math.max(0, Math.cos(err));
    drive(v, 1.5 * err);
    trace.push([state.time, odom.x, odom.y]);
    const reply = await call("/passerby/step", { steps: 10 });
    if (!reply.ok) fail(`step: ${reply.error}`);
    state = reply.ok;
  }
  console.log(JSON.stringify({ steps: state.steps, time: state.time, last: trace.at(-1) }));
  finish(0);
}

async function stall(seconds) {
  await advertised;
  await sleep(200);
  let subscribed = 0;
  for (const [topic, c] of channels) {
    if (c.encoding !== "cdr") continue;
    subscribe(topic, () => {});
    subscribed++;
  }
  await sleep(300);
  // Stop reading: the server's messages pile up in the kernel's buffers, then in its queue.
  ws._socket.pause();
  await sleep(seconds * 1000);
  console.log(JSON.stringify({ subscribed }));
  process.exit(0);
}

async function drain() {
  await advertised;
  await sleep(200);
  // Wall clock in nanoseconds, as precise as the runtime gives it.
  const wallNs = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
  const arrivals = []; // [log time ns, arrival wall ns] of point clouds
  const stepEnds = new Map(); // log time ns -> step end wall ns
  let messages = 0, bytes = 0;
  const raw = new Map(); // subscription -> topic
  for (const [topic, c] of channels) raw.set(client.subscribe(c.id), topic);
  client.on("message", ({ subscriptionId, timestamp, data }) => {
    const arrived = wallNs();
    const topic = raw.get(subscriptionId);
    if (!topic) return;
    messages++;
    bytes += data.byteLength;
    if (topic === "/passerby/timing") {
      const t = JSON.parse(new TextDecoder().decode(data));
      stepEnds.set(timestamp, BigInt(t.step_end_unix_ns));
    } else if (topic.endsWith("_points")) {
      arrivals.push([timestamp, arrived]);
    }
  });
  await new Promise((resolve) => ws.once("close", resolve));
  const latencies = arrivals
    .filter(([t]) => stepEnds.has(t))
    .map(([t, arrived]) => Number(arrived - stepEnds.get(t)) / 1e6)
    .sort((a, b) => a - b);
  const pick = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  console.log(JSON.stringify({ messages, bytes, clouds: latencies.length, p50_ms: pick(0.5), p99_ms: pick(0.99) }));
  process.exit(0);
}

if (mode === "check") await check();
else if (mode === "drain") await drain();
else if (mode === "lockstep") await lockstep(Number(arg));
else if (mode === "stall") await stall(Number(arg));
else fail(`unknown mode ${mode}`);
