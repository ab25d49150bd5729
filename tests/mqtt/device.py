#!/usr/bin/env python3
"""A spec-following MCP-over-MQTT device, written with paho-mqtt against
shared/spec/MQTT.md (EMQX's "MCP over MQTT"): the tests' stand-in where the sensor
board's `--mqtt` mode is not there, and a second, independent implementation of the
device side for the gateway to meet.

    device.py --broker HOST:PORT --server-id ID --server-name NAME [--keepalive S]

Tools: `read_sensor` (a temperature), `slow` (answers after `seconds`), `fail` (an
error result). Resource `sensor://temperature`; prompt `summary`. Sessions per client
id from `MCP-MQTT-CLIENT-ID`; retained online presence; an empty retained will.
Prints `ready` on stdout once its presence is published.
"""

import argparse
import json
import sys
import threading
import time

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

TOOLS = [
    {"name": "read_sensor", "description": "Read the temperature (Celsius).",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "slow", "description": "Answer after `seconds`.",
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "fail", "description": "Always an error result.",
     "inputSchema": {"type": "object", "properties": {}}},
]
RESOURCES = [{"uri": "sensor://temperature", "name": "temperature", "mimeType": "text/plain"}]
PROMPTS = [{"name": "summary", "description": "Summarise the readings."}]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--broker", required=True)
    ap.add_argument("--server-id", required=True)
    ap.add_argument("--server-name", required=True)
    ap.add_argument("--keepalive", type=int, default=2)
    args = ap.parse_args()
    host, port = args.broker.rsplit(":", 1)
    sid, name = args.server_id, args.server_name
    presence = f"$mcp-server/presence/{sid}/{name}"
    control = f"$mcp-server/{sid}/{name}"
    sessions = set()
    lock = threading.Lock()

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=sid, protocol=mqtt.MQTTv5)
    client.will_set(presence, payload=b"", qos=0, retain=True)

    def props():
        p = Properties(PacketTypes.PUBLISH)
        p.UserProperty = [("MCP-COMPONENT-TYPE", "mcp-server"), ("MCP-MQTT-CLIENT-ID", sid)]
        return p

    def send(topic, message, retain=False):
        with lock:
            client.publish(topic, json.dumps(message), qos=0, retain=retain, properties=props())

    def rpc(cid):
        return f"$mcp-rpc/{cid}/{sid}/{name}"

    def on_connect(c, _userdata, _flags, reason, properties):
        if reason.is_failure:
            print(f"device: connect refused: {reason}", file=sys.stderr)
            return
        sessions.clear()
        c.subscribe(control, options=SubscribeOptions(qos=0, noLocal=True))
        online = {"jsonrpc": "2.0", "method": "notifications/server/online",
                  "params": {"server_name": name, "description": "a test sensor",
                             "meta": {"tools": TOOLS}}}
        send(presence, online, retain=True)
        print("ready", flush=True)

    def answer(cid, msg):
        mid, method = msg.get("id"), msg.get("method")
        params = msg.get("params") or {}

        def result(r):
            send(rpc(cid), {"jsonrpc": "2.0", "id": mid, "result": r})

        def error(code, text):
            send(rpc(cid), {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": text}})

        if method == "ping":
            result({})
        elif method == "tools/list":
            result({"tools": TOOLS})
        elif method == "tools/call":
            tool = params.get("name")
            if tool == "read_sensor":
                result({"content": [{"type": "text", "text": f"21.5 C on {name}"}]})
            elif tool == "slow":
                def later():
                    time.sleep(float((params.get("arguments") or {}).get("seconds", 1)))
                    result({"content": [{"type": "text", "text": "slow done"}]})
                threading.Thread(target=later, daemon=True).start()
            elif tool == "fail":
                result({"content": [{"type": "text", "text": "sensor fault"}], "isError": True})
            else:
                error(-32602, f"Unknown tool: {tool}")
        elif method == "resources/list":
            result({"resources": RESOURCES})
        elif method == "resources/templates/list":
            result({"resourceTemplates": []})
        elif method == "resources/read":
            if params.get("uri") == "sensor://temperature":
                result({"contents": [{"uri": "sensor://temperature", "mimeType": "text/plain",
                                      "text": "21.5"}]})
            else:
                error(-32002, "Resource not found")
        elif method == "prompts/list":
            result({"prompts": PROMPTS})
        elif method == "prompts/get":
            if params.get("name") == "summary":
                result({"messages": [{"role": "user", "content": {"type": "text",
                                      "text": f"Summarise {name}."}}]})
            else:
                error(-32602, "Unknown prompt")
        elif mid is not None:
            error(-32601, "Method not found")

    def on_message(c, _userdata, m):
        try:
            msg = json.loads(m.payload)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        sender = dict(getattr(m.properties, "UserProperty", []) or []).get("MCP-MQTT-CLIENT-ID")
        if m.topic == control:
            if msg.get("method") != "initialize" or not sender:
                return  # an initialize without the client id is ignored
            for t in (f"$mcp-client/presence/{sender}", f"$mcp-client/capability/{sender}",
                      rpc(sender)):
                c.subscribe(t, options=SubscribeOptions(qos=0, noLocal=True))
            sessions.add(sender)
            version = (msg.get("params") or {}).get("protocolVersion", "2025-06-18")
            send(rpc(sender), {"jsonrpc": "2.0", "id": msg.get("id"), "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": True}, "resources": {},
                                 "prompts": {}},
                "serverInfo": {"name": "mqtt-test-device", "version": "1"}}})
            return
        parts = m.topic.split("/")
        cid = parts[1] if m.topic.startswith("$mcp-rpc/") else parts[-1]
        if msg.get("method") == "notifications/disconnected":
            if cid in sessions:
                sessions.discard(cid)
                for t in (f"$mcp-client/presence/{cid}", f"$mcp-client/capability/{cid}", rpc(cid)):
                    c.unsubscribe(t)
            return
        if m.topic.startswith("$mcp-rpc/") and cid in sessions:
            answer(cid, msg)

    client.on_connect = on_connect
    client.on_message = on_message
    cp = Properties(PacketTypes.CONNECT)
    cp.UserProperty = [("MCP-COMPONENT-TYPE", "mcp-server")]
    client.reconnect_delay_set(min_delay=1, max_delay=1)
    while True:
        try:
            client.connect(host, int(port), keepalive=args.keepalive, clean_start=True,
                           properties=cp)
            break
        except OSError:
            time.sleep(0.2)
    try:
        client.loop_forever(retry_first_connection=True)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
