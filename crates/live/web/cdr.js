// ROS 2 messages in CDR, decoded from their `ros2msg` definitions (the schemas the server
// advertises: the main message, then `MSG: pkg/Name` sections for every type it uses).

const PRIMITIVES = {
  bool: [1, (v, o) => v.getUint8(o) !== 0],
  byte: [1, (v, o) => v.getUint8(o)],
  char: [1, (v, o) => v.getUint8(o)],
  int8: [1, (v, o) => v.getInt8(o)],
  uint8: [1, (v, o) => v.getUint8(o)],
  int16: [2, (v, o) => v.getInt16(o, true)],
  uint16: [2, (v, o) => v.getUint16(o, true)],
  int32: [4, (v, o) => v.getInt32(o, true)],
  uint32: [4, (v, o) => v.getUint32(o, true)],
  float32: [4, (v, o) => v.getFloat32(o, true)],
  int64: [8, (v, o) => Number(v.getBigInt64(o, true))],
  uint64: [8, (v, o) => Number(v.getBigUint64(o, true))],
  float64: [8, (v, o) => v.getFloat64(o, true)],
};

// Parses a definition into { root, types: Map(name -> [{ name, type, array, length }]) }.
export function parseDefinition(rootName, text) {
  const sections = text.split(/\n=+\n/);
  const types = new Map();
  sections.forEach((section, i) => {
    let lines = section.split("\n");
    let name = rootName;
    if (i > 0) {
      const header = lines.find((l) => l.startsWith("MSG: "));
      if (!header) return;
      name = header.slice(5).trim();
      lines = lines.slice(lines.indexOf(header) + 1);
    }
    const pkg = name.split("/")[0];
    const fields = [];
    for (const raw of lines) {
      const line = raw.split("#")[0].trim();
      if (!line) continue;
      // Constants (`uint8 INT8 = 1`) carry an `=` outside a bound (`string<=8`).
      if (line.replace(/<=/g, "").includes("=")) continue;
      const [type, field] = line.split(/\s+/);
      if (!field) continue;
      const m = type.match(/^([^[<]+)(?:<=\d+)?(\[(<=)?(\d*)\])?$/);
      if (!m) continue;
      let base = m[1];
      if (!(base in PRIMITIVES) && base !== "string" && base !== "wstring") {
        if (base === "Header") base = "std_msgs/Header";
        else if (!base.includes("/")) base = `${pkg}/${base}`;
        base = base.replace("/msg/", "/");
      }
      const bounded = m[3] === "<=";
      fields.push({ name: field, type: base, array: Boolean(m[2]), length: m[2] && m[4] && !bounded ? Number(m[4]) : null });
    }
    types.set(name.replace("/msg/", "/"), fields);
  });
  return { root: rootName.replace("/msg/", "/"), types };
}

// Decodes one message (with its 4-byte encapsulation header) of a parsed definition.
export function decode(parsed, bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 4; // alignment counts from the end of the header
  const align = (n) => {
    const rel = at - 4;
    at += (n - (rel % n)) % n;
  };
  const read = (type) => {
    if (type === "string" || type === "wstring") {
      align(4);
      const len = view.getUint32(at, true);
      at += 4;
      const s = new TextDecoder().decode(bytes.subarray(at, at + Math.max(0, len - 1)));
      at += len;
      return s;
    }
    const p = PRIMITIVES[type];
    if (p) {
      align(p[0]);
      const v = p[1](view, at);
      at += p[0];
      return v;
    }
    const fields = parsed.types.get(type);
    if (!fields) throw new Error(`unknown type ${type}`);
    const out = {};
    for (const f of fields) {
      if (!f.array) {
        out[f.name] = read(f.type);
        continue;
      }
      let n = f.length;
      if (n === null) {
        align(4);
        n = view.getUint32(at, true);
        at += 4;
      }
      if (f.type === "uint8" || f.type === "byte" || f.type === "char") {
        out[f.name] = bytes.subarray(at, at + n);
        at += n;
      } else {
        const list = new Array(n);
        for (let i = 0; i < n; i++) list[i] = read(f.type);
        out[f.name] = list;
      }
    }
    return out;
  };
  return read(parsed.root);
}
