//! Input-required results (2026-07-28) and server-to-client requests (initialize era)
//! through the public API: one handler, both eras; `requestState` sealed and checked;
//! -32021 for a capability the client lacks; responses filed with the call that asked.

use emcp::device::input::Capability;
use emcp::device::ToolCall;
use emcp::model::registry::Tool;
use emcp::state::seal::StateKey;
use emcp::wire::json::{Sink, SinkError};
use emcp::{Config, Device, Era, Server, Step};
use serde_json::{json, Value};

static TOOLS: [Tool<'static>; 2] = [
    Tool::new("greet", r#"{"type":"object"}"#),
    Tool::new("needs_sampling", r#"{"type":"object"}"#),
];

/// Asks for a name (round 1, state "asked"), greets with it (round 2).
struct Greeter;

impl Device for Greeter {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        if call.tool() == 1 {
            if call.require(Capability::Sampling) {
                call.text("sampled");
            }
            return Step::Done;
        }
        let name = call
            .input("who")
            .filter(|_| call.request_state().is_none_or(|s| s == b"asked"))
            .and_then(|v| v.get("content"))
            .and_then(|c| c.get("name"))
            .and_then(|n| n.as_str())
            .and_then(|n| n.as_plain().map(str::to_owned));
        match name {
            Some(name) => {
                call.text(&format!("Hello, {name}!"));
            }
            None => {
                let asked = call.ask("who", Capability::Elicitation, &|w| {
                    w.begin_object();
                    w.key("message");
                    w.str("Name?");
                    w.end_object();
                });
                if asked {
                    call.set_request_state(b"asked");
                } else if call.require(Capability::Elicitation) {
                    // Declared, but no room to wait for the answer now.
                    call.error("Cannot ask now");
                }
            }
        }
        Step::Done
    }
}

#[derive(Default)]
struct Lines {
    bytes: Vec<u8>,
    routes: Vec<Option<Vec<u8>>>,
}

impl Sink for Lines {
    fn write(&mut self, b: &[u8]) -> Result<(), SinkError> {
        self.bytes.extend_from_slice(b);
        Ok(())
    }
    fn route(&mut self, r: Option<&[u8]>) {
        self.routes.push(r.map(<[u8]>::to_vec));
    }
}

impl Lines {
    fn json(&self) -> Vec<Value> {
        std::str::from_utf8(&self.bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn server() -> Server<Greeter, 2, 2, 1> {
    let mut s = Server::new(Greeter, Config::new("t", "1")).unwrap();
    s.set_state_key(StateKey::new([42; 32]));
    s
}

fn send(s: &mut Server<Greeter, 2, 2, 1>, era: Option<Era>, msg: Value) -> Vec<Value> {
    let mut out = Lines::default();
    s.handle_in(msg.to_string().as_bytes(), era, &mut out);
    out.json()
}

/// The initialize request, declaring `caps`.
fn initialize(caps: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": caps,
        "clientInfo": {"name": "t", "version": "1"}}})
}

fn stateless_call(id: u32, name: &str, caps: Value, extra: Value) -> Value {
    let mut params = json!({
        "name": name,
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        }
    });
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[test]
fn stateless_round_trip_with_sealed_state() {
    let mut s = server();
    let caps = json!({"elicitation": {}});
    let r1 = send(
        &mut s,
        None,
        stateless_call(1, "greet", caps.clone(), json!({})),
    );
    let result = &r1[0]["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["who"]["method"],
        "elicitation/create"
    );
    assert_eq!(result["inputRequests"]["who"]["params"]["message"], "Name?");
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_string();
    assert!(result.get("ttlMs").is_none());

    let answer = json!({"who": {"action": "accept", "content": {"name": "Ada"}}});
    let r2 = send(
        &mut s,
        None,
        stateless_call(
            2,
            "greet",
            caps.clone(),
            json!({"inputResponses": answer, "requestState": state}),
        ),
    );
    assert_eq!(r2[0]["result"]["resultType"], "complete");
    assert_eq!(r2[0]["result"]["content"][0]["text"], "Hello, Ada!");

    // Altered state, or state sealed for another tool: -32602, the handler never runs.
    for bad in [
        format!("{state}-TAMPERED"),
        format!("x{}", &state[1..]),
        "".into(),
    ] {
        let r = send(
            &mut s,
            None,
            stateless_call(
                3,
                "greet",
                caps.clone(),
                json!({"inputResponses": answer, "requestState": bad}),
            ),
        );
        assert_eq!(r[0]["error"]["code"], -32602, "{r:?}");
    }
    // A response that is not what was asked (not an object): asked again.
    let r = send(
        &mut s,
        None,
        stateless_call(4, "greet", caps, json!({"inputResponses": {"who": 5}})),
    );
    assert_eq!(r[0]["result"]["resultType"], "input_required");
}

#[test]
fn missing_capability_is_32021_with_the_capability() {
    let mut s = server();
    let r = send(
        &mut s,
        None,
        stateless_call(1, "needs_sampling", json!({}), json!({})),
    );
    assert_eq!(r[0]["error"]["code"], -32021);
    assert_eq!(
        r[0]["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    let r = send(
        &mut s,
        None,
        stateless_call(2, "greet", json!({}), json!({})),
    );
    assert_eq!(
        r[0]["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
    let r = send(
        &mut s,
        None,
        stateless_call(3, "needs_sampling", json!({"sampling": {}}), json!({})),
    );
    assert_eq!(r[0]["result"]["content"][0]["text"], "sampled");
}

#[test]
fn initialize_era_sends_the_request_and_resumes_on_the_response() {
    let mut s = server();
    send(&mut s, None, initialize(json!({"elicitation": {}})));
    let call = json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call",
        "params": {"name": "greet", "arguments": {"x": 1}}});
    let out = send(&mut s, None, call);
    // A request to the client, and no result yet.
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "elicitation/create");
    assert_eq!(out[0]["params"]["message"], "Name?");
    let server_id = out[0]["id"].clone();
    assert!(s.is_pending(b"\"c1\""));
    assert!(!s.busy(), "a waiting call needs no polling");

    // Unknown response ids are ignored; the real one resumes the call.
    send(
        &mut s,
        None,
        json!({"jsonrpc": "2.0", "id": 999, "result": {}}),
    );
    assert!(!s.busy());
    let out = send(
        &mut s,
        None,
        json!({"jsonrpc": "2.0", "id": server_id, "result": {"action": "accept", "content": {"name": "Bo"}}}),
    );
    assert!(out.is_empty(), "a response gets no answer: {out:?}");
    assert!(s.busy());
    let mut lines = Lines::default();
    s.poll(&mut lines);
    let out = lines.json();
    assert_eq!(out[0]["id"], "c1");
    assert_eq!(out[0]["result"]["content"][0]["text"], "Hello, Bo!");
    assert_eq!(lines.routes, vec![Some(b"\"c1\"".to_vec())]);
    assert!(!s.is_pending(b"\"c1\""));
}

#[test]
fn initialize_era_without_the_capability_or_a_wait_slot() {
    let mut s = server();
    send(&mut s, None, initialize(json!({})));
    let call =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}});
    let out = send(&mut s, Some(Era::Legacy), call);
    assert_eq!(out[0]["error"]["code"], -32021);

    // Declared, but W = 0: the call cannot wait, so it cannot ask (a tool error).
    let mut s: Server<Greeter> = Server::new(Greeter, Config::new("t", "1")).unwrap();
    let mut out = Lines::default();
    let init = initialize(json!({"elicitation": {}}));
    s.handle(init.to_string().as_bytes(), &mut out);
    let call =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}});
    let mut out = Lines::default();
    s.handle(call.to_string().as_bytes(), &mut out);
    let out = out.json();
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    assert_eq!(out[0]["result"]["content"][0]["text"], "Cannot ask now");
}

#[test]
fn cancelling_a_waiting_call_frees_its_slot() {
    let mut s = server();
    send(&mut s, None, initialize(json!({"elicitation": {}})));
    let call = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "greet"}});
    assert_eq!(
        send(&mut s, None, call(1))[0]["method"],
        "elicitation/create"
    );
    // The one wait slot is taken: a second call cannot ask.
    assert_eq!(send(&mut s, None, call(2))[0]["result"]["isError"], true);
    send(
        &mut s,
        None,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    );
    assert!(!s.is_pending(b"1"));
    assert_eq!(
        send(&mut s, None, call(3))[0]["method"],
        "elicitation/create"
    );
}
