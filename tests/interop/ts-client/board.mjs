// The official TypeScript MCP SDK's client (@modelcontextprotocol/sdk 1.32.2, the one
// scripts/setup-conformance.sh pins and installs into .tools/conformance) against the
// sensor board of docs/board.md, in the revision that SDK speaks (initialize,
// 2025-11-25): every tool, resource, template, prompt and completion, with progress,
// logging and a resource subscription. The SDK checks each result against its zod
// schemas and, after tools/list, `structuredContent` against the tool's outputSchema.
//
//   node tests/interop/ts-client/board.mjs BOARD [ARG...]   # the board's MCP on stdin/stdout
//   node tests/interop/ts-client/board.mjs --http BOARD     # BOARD --http 127.0.0.1:PORT
//
// Prints one line per check (`ok` or `FAIL` with what was expected and what came);
// exits 1 when any check failed.

import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const sdk = path.join(root, ".tools/conformance/node_modules/@modelcontextprotocol/sdk/dist/esm");
const load = (p) => import(pathToFileURL(path.join(sdk, p)).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, McpError } =
  await load("types.js");

const TIMEOUT_MS = 20000;
const NOTIFY_MS = 5000;

let passed = 0;
let failed = 0;
function check(what, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${what}`);
  } else {
    failed++;
    console.log(`FAIL ${what}: ${detail()}`);
  }
}

// JSON equality, numbers by value (40 and 40.0 are one JSON number).
function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && same(a[k], b[k]));
  }
  return a === b;
}
const eq = (what, got, want) =>
  check(what, same(got, want), () => `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o && k in o).map((k) => [k, o[k]]));

// A request that must succeed: its result, or undefined (a failed check).
async function result(what, promise) {
  try {
    return await promise;
  } catch (e) {
    check(what, false, () => `request failed: ${e?.message ?? e}`);
    return undefined;
  }
}
// A request that must fail with the JSON-RPC error `code`.
async function error(what, promise, code) {
  try {
    const r = await promise;
    check(what, false, () => `expected error ${code}, got ${JSON.stringify(r)}`);
  } catch (e) {
    check(what, e instanceof McpError && e.code === code, () => `expected error ${code}, got ${e}`);
  }
}
async function until(cond) {
  const end = Date.now() + NOTIFY_MS;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

const INSTRUCTIONS =
  "Simulated sensor board: read sensors with read_sensor or the sensor:// resources; " +
  "set_led and move_servo drive the actuators.";
const ACTUATOR = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const TOOLS = [
  {
    name: "read_sensor",
    title: "Read sensor",
    description: "Read the current value of one on-board sensor.",
    inputSchema: {
      type: "object",
      properties: {
        sensor: { type: "string", enum: ["temperature", "humidity", "pressure"], description: "Which sensor to read" },
      },
      required: ["sensor"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { sensor: { type: "string" }, value: { type: "number" }, unit: { type: "string" } },
      required: ["sensor", "value", "unit"],
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: "set_led",
    title: "Set LED",
    description: "Set the status LED colour and brightness (0-100 %).",
    inputSchema: {
      type: "object",
      properties: {
        color: { type: "string", enum: ["off", "red", "green", "blue"] },
        brightness: { type: "integer", minimum: 0, maximum: 100 },
      },
      required: ["color"],
      additionalProperties: false,
    },
    annotations: ACTUATOR,
  },
  {
    name: "move_servo",
    title: "Move servo",
    description: "Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.",
    inputSchema: {
      type: "object",
      properties: { angle: { type: "number", minimum: -90, maximum: 90 } },
      required: ["angle"],
      additionalProperties: false,
    },
    annotations: ACTUATOR,
  },
];

// `binary --http 127.0.0.1:PORT` on a free port, once it listens.
async function startHttp(binary) {
  const port = await new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const child = spawn(binary, ["--http", `127.0.0.1:${port}`], { stdio: ["ignore", "inherit", "inherit"] });
  const end = Date.now() + 10000;
  for (;;) {
    const up = await new Promise((resolve) => {
      const c = net.connect(port, "127.0.0.1", () => (c.end(), resolve(true)));
      c.on("error", () => resolve(false));
    });
    if (up) break;
    if (Date.now() > end || child.exitCode !== null) throw new Error(`the board never listened on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: new URL(`http://127.0.0.1:${port}/mcp`) };
}

const argv = process.argv.slice(2);
if (argv.length === 0 || (argv[0] === "--http" && argv.length !== 2)) {
  console.error("usage: node tests/interop/ts-client/board.mjs BOARD [ARG...] | --http BOARD");
  process.exit(2);
}
let http;
let transport;
if (argv[0] === "--http") {
  http = await startHttp(argv[1]);
  transport = new StreamableHTTPClientTransport(http.url);
} else {
  transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: "inherit" });
}

const seen = [];
const client = new Client({ name: "emcp-ts-client", version: "0.1.0" }, { capabilities: {} });
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => seen.push({ log: n.params }));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => seen.push({ updated: n.params.uri }));
const opts = { timeout: TIMEOUT_MS };

try {
  await client.connect(transport, opts);
  check("initialize", true);
} catch (e) {
  check("initialize", false, () => `${e?.message ?? e}`);
}
if (failed === 0) {
  eq("initialize: server info", pick(client.getServerVersion(), ["name", "version", "title"]), {
    name: "emcp-sensor-board",
    version: "0.1.0",
    title: "emcp simulated sensor board",
  });
  const caps = client.getServerCapabilities() ?? {};
  check(
    "initialize: capabilities tools, resources (subscribe), prompts, completions, logging",
    ["tools", "prompts", "completions", "logging"].every((k) => k in caps) && caps.resources?.subscribe === true,
    () => JSON.stringify(caps),
  );
  eq("initialize: instructions", client.getInstructions(), INSTRUCTIONS);
  if (http) eq("initialize: protocol version (HTTP header)", transport.protocolVersion, "2025-11-25");

  // Tools (tools/list first: the SDK then checks structuredContent against outputSchema).
  const keys = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"];
  const tools = await result("tools/list", client.listTools(undefined, opts));
  if (tools) eq("tools/list: the three tools as docs/board.md", tools.tools.map((t) => pick(t, keys)), TOOLS);
  for (const [sensor, text, structured] of [
    ["temperature", "temperature: 21.5 C", { sensor: "temperature", value: 21.5, unit: "C" }],
    ["humidity", "humidity: 40.0 %", { sensor: "humidity", value: 40, unit: "%" }],
    ["pressure", "pressure: 1013.2 hPa", { sensor: "pressure", value: 1013.2, unit: "hPa" }],
  ]) {
    const r = await result(
      `tools/call read_sensor ${sensor}`,
      client.callTool({ name: "read_sensor", arguments: { sensor } }, undefined, opts),
    );
    if (r) {
      eq(`read_sensor ${sensor}: content`, r.content, [{ type: "text", text }]);
      eq(`read_sensor ${sensor}: structuredContent`, r.structuredContent, structured);
      check(`read_sensor ${sensor}: not an error`, r.isError !== true, () => JSON.stringify(r));
    }
  }
  const wind = await result(
    "tools/call read_sensor wind",
    client.callTool({ name: "read_sensor", arguments: { sensor: "wind" } }, undefined, opts),
  );
  if (wind) eq("read_sensor wind: isError", wind.isError, true);
  await error("tools/call fly: -32602", client.callTool({ name: "fly", arguments: {} }, undefined, opts), -32602);
  // move_servo's progress. SDK 1.x runs notification handlers a microtask later but a
  // response at once, so progress that arrives in the same read as the response finds
  // its handler gone and is reported through onerror ("unknown token"; the SDK's issue
  // #2580) instead of reaching onprogress. The simulated servo moves at once, so on
  // stdio its three notifications come with the result; over HTTP (steps on the
  // server's poller) and from the firmware (a UART) they come before it. Either way
  // all three must have come, in order, each with the request's token.
  const progress = [];
  const dropped = [];
  client.onerror = (e) => {
    const m = /unknown token: (\{.*\})$/s.exec(String(e?.message ?? e));
    if (m) dropped.push(JSON.parse(m[1]).params);
  };
  const servo = await result(
    "tools/call move_servo",
    client.callTool({ name: "move_servo", arguments: { angle: 45 } }, undefined, {
      ...opts,
      onprogress: (p) => progress.push(p),
    }),
  );
  if (servo) {
    eq("move_servo 45: content", servo.content, [{ type: "text", text: "servo: 45.0 deg" }]);
    await until(() => progress.length + dropped.length >= 3);
    eq(
      "move_servo 45: progress 1, 2, 3 of 3 (delivered, or dropped by the SDK as late)",
      [...progress, ...dropped].map((p) => pick(p, ["progress", "total", "message"])),
      [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `servo step ${i}/3` })),
    );
    const tokens = new Set(dropped.map((p) => p.progressToken));
    check(
      "move_servo 45: the dropped ones carry the request's token",
      dropped.length === 0 || (tokens.size === 1 && typeof [...tokens][0] === "number"),
      () => JSON.stringify(dropped),
    );
    console.log(`note move_servo 45: ${progress.length} progress notifications delivered, ${dropped.length} dropped by the SDK`);
  }
  client.onerror = undefined;

  // Resources.
  const resources = await result("resources/list", client.listResources(undefined, opts));
  if (resources) {
    eq(
      "resources/list: the five resources in order",
      resources.resources.map((r) => r.uri),
      ["sensor://temperature", "sensor://humidity", "sensor://pressure", "led://state", "log://samples"],
    );
    eq("resources/list: sensor://temperature described", pick(resources.resources[0], ["uri", "name", "title", "description", "mimeType"]), {
      uri: "sensor://temperature",
      name: "temperature",
      title: "Temperature",
      description: "Air temperature in degrees Celsius",
      mimeType: "application/json",
    });
  }
  const read = (uri) => client.readResource({ uri }, opts);
  const temp = await result("resources/read sensor://temperature", read("sensor://temperature"));
  if (temp)
    eq("resources/read sensor://temperature", temp.contents, [
      { uri: "sensor://temperature", mimeType: "application/json", text: '{"celsius":21.5}' },
    ]);
  const samples = await result("resources/read log://samples", read("log://samples"));
  if (samples) {
    const bytes = Buffer.from(samples.contents[0]?.blob ?? "", "base64");
    const want = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) % 256));
    check("resources/read log://samples: 4096 bytes, byte i = (i*31+7) mod 256", bytes.equals(want), () => `got ${bytes.length} bytes`);
    eq("resources/read log://samples: mimeType", samples.contents[0]?.mimeType, "application/octet-stream");
  }
  await error("resources/read sensor://wind/history: -32002", read("sensor://wind/history"), -32002);
  const templates = await result("resources/templates/list", client.listResourceTemplates(undefined, opts));
  if (templates)
    eq(
      "resources/templates/list: sensor://{name}/history",
      templates.resourceTemplates.map((t) => pick(t, ["uriTemplate", "name", "title", "mimeType"])),
      [{ uriTemplate: "sensor://{name}/history", name: "sensor-history", title: "Sensor history", mimeType: "text/csv" }],
    );
  const history = await result("resources/read sensor://temperature/history", read("sensor://temperature/history"));
  if (history) {
    const rows = Array.from({ length: 8 }, (_, i) => `${i},${(21.5 - 0.1 * (7 - i)).toFixed(1)}\n`);
    eq("resources/read sensor://temperature/history", history.contents[0]?.text, "sample,value\n" + rows.join(""));
  }

  // Prompts and completion.
  const prompts = await result("prompts/list", client.listPrompts(undefined, opts));
  if (prompts)
    eq("prompts/list: diagnose_board", prompts.prompts.map((p) => pick(p, ["name", "title", "arguments"])), [
      {
        name: "diagnose_board",
        title: "Diagnose board",
        arguments: [{ name: "symptom", description: "What is wrong with the board", required: true }],
      },
    ]);
  const prompt = await result(
    "prompts/get diagnose_board",
    client.getPrompt({ name: "diagnose_board", arguments: { symptom: "no reading" } }, opts),
  );
  if (prompt)
    eq("prompts/get diagnose_board", pick(prompt, ["description", "messages"]), {
      description: "Diagnose the sensor board",
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text:
              "The sensor board shows this symptom: no reading\n" +
              "Current readings: temperature 21.5 C, humidity 40.0 %, pressure 1013.2 hPa, LED off 0%.\n" +
              "What is the likely cause and what should I check first?",
          },
        },
      ],
    });
  await error("prompts/get without its required argument: -32602", client.getPrompt({ name: "diagnose_board" }, opts), -32602);
  const c1 = await result(
    "completion/complete (prompt)",
    client.complete({ ref: { type: "ref/prompt", name: "diagnose_board" }, argument: { name: "symptom", value: "l" } }, opts),
  );
  if (c1) eq('completion of symptom "l"', pick(c1.completion, ["values", "total", "hasMore"]), { values: ["led stuck"], total: 1, hasMore: false });
  const c2 = await result(
    "completion/complete (template)",
    client.complete({ ref: { type: "ref/resource", uri: "sensor://{name}/history" }, argument: { name: "name", value: "" } }, opts),
  );
  if (c2)
    eq('completion of name ""', pick(c2.completion, ["values", "total", "hasMore"]), {
      values: ["temperature", "humidity", "pressure"],
      total: 3,
      hasMore: false,
    });

  // set_led: the log message (logging/setLevel info) and the update of led://state
  // (resources/subscribe).
  await result("logging/setLevel info", client.setLoggingLevel("info", opts));
  await result("resources/subscribe led://state", client.subscribeResource({ uri: "led://state" }, opts));
  seen.length = 0;
  const led = await result(
    "tools/call set_led",
    client.callTool({ name: "set_led", arguments: { color: "red", brightness: 50 } }, undefined, opts),
  );
  if (led) eq("set_led red 50: content", led.content, [{ type: "text", text: "led: red 50%" }]);
  await until(() => seen.some((n) => n.updated));
  eq(
    "logging: notifications/message",
    seen.filter((n) => n.log).map((n) => pick(n.log, ["level", "logger", "data"])),
    [{ level: "info", logger: "led", data: "led: red 50%" }],
  );
  eq("resources/subscribe: notifications/resources/updated", seen.filter((n) => n.updated).map((n) => n.updated), ["led://state"]);
  const state = await result("resources/read led://state", read("led://state"));
  if (state) eq("resources/read led://state after set_led", state.contents[0]?.text, '{"color":"red","brightness":50}');
  await result("ping", client.ping(opts));
}
await client.close().catch(() => {});
http?.child.kill();
console.log(`TypeScript SDK 1.32.2 client against ${argv.join(" ")}: ${passed} checks passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
