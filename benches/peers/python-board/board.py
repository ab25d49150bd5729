"""The emcp sensor board (docs/board.md) on the official Python MCP SDK (mcp==2.3.0).

A benchmark peer: it reproduces the board's listings and results with the SDK's
low-level `Server` (hand-written schemas, so every listing is exactly the board's),
served on stdin/stdout. Nothing but protocol goes to stdout; Python warnings and
logging go to stderr.

    .tools/venv/bin/python benches/peers/python-board/board.py
"""

import base64
import warnings

import anyio
import mcp_types as t
from mcp.server import CacheHint, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

# logging/setLevel is deprecated at 2026-07-28; the board still serves it.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

INSTRUCTIONS = (
    "Simulated sensor board: read sensors with read_sensor or the sensor:// resources; "
    "set_led and move_servo drive the actuators."
)

# name -> (unit, resource JSON key, reading in tenths)
SENSORS = {"temperature": ("C", "celsius", 215), "humidity": ("%", "percent", 400), "pressure": ("hPa", "hpa", 10132)}
SYMPTOMS = ["no reading", "wrong value", "led stuck"]
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
SAMPLES = base64.b64encode(bytes((i * 31 + 7) & 0xFF for i in range(4096))).decode()

ACTUATOR = t.ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
TOOLS = [
    t.Tool(
        name="read_sensor",
        title="Read sensor",
        description="Read the current value of one on-board sensor.",
        input_schema={"type": "object", "properties": {"sensor": {"type": "string", "enum": ["temperature", "humidity", "pressure"], "description": "Which sensor to read"}}, "required": ["sensor"], "additionalProperties": False},  # noqa: E501
        output_schema={"type": "object", "properties": {"sensor": {"type": "string"}, "value": {"type": "number"}, "unit": {"type": "string"}}, "required": ["sensor", "value", "unit"]},  # noqa: E501
        annotations=t.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    t.Tool(
        name="set_led",
        title="Set LED",
        description="Set the status LED colour and brightness (0-100 %).",
        input_schema={"type": "object", "properties": {"color": {"type": "string", "enum": ["off", "red", "green", "blue"]}, "brightness": {"type": "integer", "minimum": 0, "maximum": 100}}, "required": ["color"], "additionalProperties": False},  # noqa: E501
        annotations=ACTUATOR,
    ),
    t.Tool(
        name="move_servo",
        title="Move servo",
        description="Move the servo to an angle in degrees; reports progress in 3 steps and can be cancelled.",
        input_schema={"type": "object", "properties": {"angle": {"type": "number", "minimum": -90, "maximum": 90}}, "required": ["angle"], "additionalProperties": False},  # noqa: E501
        annotations=ACTUATOR,
    ),
]
SCHEMAS = {tool.name: tool.input_schema for tool in TOOLS}


def json_resource(uri, name, title, description):
    return t.Resource(uri=uri, name=name, title=title, description=description, mime_type="application/json")


RESOURCES = [
    json_resource("sensor://temperature", "temperature", "Temperature", "Air temperature in degrees Celsius"),
    json_resource("sensor://humidity", "humidity", "Humidity", "Relative humidity in percent"),
    json_resource("sensor://pressure", "pressure", "Pressure", "Air pressure in hectopascal"),
    json_resource("led://state", "led", "LED state", "Colour and brightness of the status LED"),
    t.Resource(
        uri="log://samples",
        name="samples",
        title="Sample log",
        description="Raw sample log (4096 bytes)",
        mime_type="application/octet-stream",
        size=4096,
    ),
]
TEMPLATE = t.ResourceTemplate(
    uri_template="sensor://{name}/history",
    name="sensor-history",
    title="Sensor history",
    description="The last 8 readings of a sensor",
    mime_type="text/csv",
)
PROMPT = t.Prompt(
    name="diagnose_board",
    title="Diagnose board",
    description="Ask the assistant to diagnose a board problem from the current readings.",
    arguments=[t.PromptArgument(name="symptom", description="What is wrong with the board", required=True)],
)

# The simulated board (one stdio connection, so module state is the device state).
state = {"led": "off", "brightness": 0, "servo": 0, "log_level": None, "led_subscribed": False}


def tenths(v):
    """A value in tenths printed with one decimal (`%.1f`, exact)."""
    return f"{'-' if v < 0 else ''}{abs(v) // 10}.{abs(v) % 10}"


def text_result(text, error=False, structured=None):
    # The board leaves `isError` out on success.
    extra = {"is_error": True} if error else {}
    return t.CallToolResult(content=[t.TextContent(type="text", text=text)], structured_content=structured, **extra)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def violation(schema, args):
    """The core's argument check (emcp `schema.rs`): same rules, same messages."""
    props = schema["properties"]
    for name, value in args.items():
        p = props.get(name)
        if p is None:
            return f'Unknown argument "{name}": additional properties are not allowed'
        kind = p.get("type")
        ok = {"string": isinstance(value, str), "number": number(value)}.get(kind, True)
        if kind == "integer":
            ok = number(value) and float(value).is_integer()
        if not ok:
            return f'Invalid argument "{name}": expected type {kind}'
        if "enum" in p and value not in p["enum"]:
            listed = ",".join(f'"{e}"' for e in p["enum"])
            return f'Invalid argument "{name}": must be one of [{listed}]'
        if "minimum" in p and value < p["minimum"]:
            return f'Invalid argument "{name}": must be >= {p["minimum"]}'
        if "maximum" in p and value > p["maximum"]:
            return f'Invalid argument "{name}": must be <= {p["maximum"]}'
    for name in schema["required"]:
        if name not in args:
            return f'Missing required argument "{name}"'
    return None


async def list_tools(ctx, params):
    return t.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    args = params.arguments or {}
    if params.name not in SCHEMAS:
        return text_result(f"Unknown tool: {params.name}", error=True)
    problem = violation(SCHEMAS[params.name], args)
    if problem:
        return text_result(problem, error=True)
    if params.name == "read_sensor":
        name = args["sensor"]
        unit, _, v = SENSORS[name]
        # Shortest round-trip numbers, as the board writes them: 40 (not 40.0), 21.5.
        value = v // 10 if v % 10 == 0 else v / 10
        return text_result(f"{name}: {tenths(v)} {unit}", structured={"sensor": name, "value": value, "unit": unit})
    if params.name == "set_led":
        color = args["color"]
        state["led"] = color
        state["brightness"] = 0 if color == "off" else int(args.get("brightness", 100))
        text = f"led: {color} {state['brightness']}%"
        level = state["log_level"]
        if level is not None and LEVELS.index(level) <= LEVELS.index("info"):
            await ctx.session.send_log_message("info", text, logger="led")
        if state["led_subscribed"]:
            # The board sends this after the response; a handler can only send before.
            await ctx.session.send_resource_updated("led://state")
        return text_result(text)
    # move_servo: three steps with progress; the SDK drops the result of a cancelled call.
    for step in (1, 2, 3):
        await anyio.sleep(0)
        await ctx.session.report_progress(step, 3, f"servo step {step}/3")
    state["servo"] = int(args["angle"] * 10)  # tenths, truncated toward zero
    return text_result(f"servo: {tenths(state['servo'])} deg")


async def list_resources(ctx, params):
    return t.ListResourcesResult(resources=RESOURCES)


async def list_resource_templates(ctx, params):
    return t.ListResourceTemplatesResult(resource_templates=[TEMPLATE])


def json_text(uri, text):
    return t.TextResourceContents(uri=uri, mime_type="application/json", text=text)


async def read_resource(ctx, params):
    uri = str(params.uri)
    sensor = uri.removeprefix("sensor://")
    if uri.startswith("sensor://") and sensor in SENSORS:
        _, key, v = SENSORS[sensor]
        contents = json_text(uri, f'{{"{key}":{tenths(v)}}}')
    elif uri == "led://state":
        contents = json_text(uri, f'{{"color":"{state["led"]}","brightness":{state["brightness"]}}}')
    elif uri == "log://samples":
        contents = t.BlobResourceContents(uri=uri, mime_type="application/octet-stream", blob=SAMPLES)
    elif uri.startswith("sensor://") and sensor.endswith("/history") and sensor[: -len("/history")] in SENSORS:
        now = SENSORS[sensor[: -len("/history")]][2]
        csv = "sample,value\n" + "".join(f"{i},{tenths(now - (7 - i))}\n" for i in range(8))
        contents = t.TextResourceContents(uri=uri, mime_type="text/csv", text=csv)
    else:
        raise MCPError(code=-32002, message="Resource not found", data={"uri": uri})
    return t.ReadResourceResult(contents=[contents])


async def subscribe(ctx, params):
    if str(params.uri) == "led://state":
        state["led_subscribed"] = True
    return t.EmptyResult()


async def unsubscribe(ctx, params):
    if str(params.uri) == "led://state":
        state["led_subscribed"] = False
    return t.EmptyResult()


async def set_level(ctx, params):
    state["log_level"] = params.level
    return t.EmptyResult()


async def list_prompts(ctx, params):
    return t.ListPromptsResult(prompts=[PROMPT])


async def get_prompt(ctx, params):
    symptom = (params.arguments or {}).get("symptom")
    if params.name != "diagnose_board" or symptom is None:
        raise MCPError(code=-32602, message="Invalid params")
    r = {name: tenths(v) for name, (_, _, v) in SENSORS.items()}
    text = (
        f"The sensor board shows this symptom: {symptom}\n"
        f"Current readings: temperature {r['temperature']} C, humidity {r['humidity']} %, "
        f"pressure {r['pressure']} hPa, LED {state['led']} {state['brightness']}%.\n"
        "What is the likely cause and what should I check first?"
    )
    message = t.PromptMessage(role="user", content=t.TextContent(type="text", text=text))
    return t.GetPromptResult(description="Diagnose the sensor board", messages=[message])


async def complete(ctx, params):
    ref, arg = params.ref, params.argument
    candidates = []
    if ref.type == "ref/resource" and ref.uri == "sensor://{name}/history" and arg.name == "name":
        candidates = list(SENSORS)
    elif ref.type == "ref/prompt" and ref.name == "diagnose_board" and arg.name == "symptom":
        candidates = SYMPTOMS
    values = [c for c in candidates if c.startswith(arg.value)]
    return t.CompleteResult(completion=t.Completion(values=values, total=len(values), has_more=False))


# Listings are static: clients may cache them for an hour, publicly; readings are
# live (fresh for 0 ms). Only sent on 2026-07-28, as the board does.
LISTED = CacheHint(ttl_ms=3_600_000, scope="public")
server = Server(
    "emcp-sensor-board",
    version="0.1.0",
    title="emcp simulated sensor board",
    instructions=INSTRUCTIONS,
    cache_hints={
        "tools/list": LISTED,
        "resources/list": LISTED,
        "resources/templates/list": LISTED,
        "prompts/list": LISTED,
        "server/discover": LISTED,
        "resources/read": CacheHint(ttl_ms=0, scope="public"),
    },
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource,
    on_subscribe_resource=subscribe,
    on_unsubscribe_resource=unsubscribe,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt,
    on_completion=complete,
    on_set_logging_level=set_level,
)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        options = server.create_initialization_options()
        # The board advertises bare `{}` capability objects (no `listChanged: false`).
        caps = options.capabilities
        caps.tools, caps.prompts = t.ToolsCapability(), t.PromptsCapability()
        caps.resources = t.ResourcesCapability(subscribe=True)
        await server.run(read_stream, write_stream, options)


if __name__ == "__main__":
    anyio.run(main)
