//! Unit tests of tasks: both eras, every method and error, the state machine, expiry,
//! a full table and the ids.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
extern crate std;

use crate::device::input::Capability;
use crate::device::{Device, Step, ToolCall};
use crate::model::registry::{TaskSupport, Tool};
use crate::state::seal::StateKey;
use crate::wire::json::{Sink, SinkError};
use crate::{Config, Server};
use serde_json::{json, Value};
use std::string::{String, ToString};
use std::vec::Vec;

static TOOLS: [Tool<'static>; 7] = [
    Tool::new("quick", r#"{"type":"object"}"#),
    Tool::new("slow", r#"{"type":"object"}"#).task_support(TaskSupport::Optional),
    Tool::new("must", r#"{"type":"object"}"#).task_support(TaskSupport::Required),
    Tool::new("boom", r#"{"type":"object"}"#).task_support(TaskSupport::Optional),
    Tool::new("ask", r#"{"type":"object"}"#).task_support(TaskSupport::Optional),
    Tool::new("two", r#"{"type":"object"}"#).task_support(TaskSupport::Optional),
    Tool::new("fickle", r#"{"type":"object"}"#).task_support(TaskSupport::Optional),
];

/// A device whose tools take three polls, fail, or ask; its clock is set by the test.
#[derive(Default)]
struct Dev {
    now: u64,
    cancelled: Vec<(usize, u32)>,
    /// Rounds of `fickle`, which asks in its first round only (against the rule).
    fickle_rounds: u32,
}

impl Device for Dev {
    fn tool(&self, i: usize) -> Option<Tool<'static>> {
        TOOLS.get(i).copied()
    }
    fn now_ms(&self) -> u64 {
        self.now
    }
    fn call_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        if call.tool() == 0 {
            call.text("hi");
            return Step::Done;
        }
        call.set_state(3);
        call.set_request_state(b"kept");
        Step::Pending
    }
    fn poll_tool(&mut self, call: &mut ToolCall<'_>) -> Step {
        match call.tool() {
            1 | 2 => {
                call.set_state(call.state() - 1);
                if call.state() > 0 {
                    return Step::Pending;
                }
                if call.tool() == 2 {
                    call.error("no luck");
                } else {
                    call.text("slow done");
                }
                Step::Done
            }
            3 => {
                call.fail("boom");
                Step::Done
            }
            4 => {
                if call.input("a").is_some() {
                    call.set_state(100);
                    return Step::Done;
                }
                call.ask("a", Capability::Elicitation, &|w| {
                    w.raw_value(b"{\"message\":\"A?\"}")
                });
                Step::Pending
            }
            6 => {
                self.fickle_rounds += 1;
                match self.fickle_rounds {
                    1 => {
                        call.ask("z", Capability::Elicitation, &|w| w.raw_value(b"{}"));
                        Step::Pending
                    }
                    2 | 3 => Step::Pending,
                    _ => Step::Done,
                }
            }
            _ => {
                let mut have = call.state() & 0xf0;
                for (bit, key) in [(0x10, "x"), (0x20, "y")] {
                    if call.input(key).is_some() {
                        have |= bit;
                    }
                }
                call.set_state(have);
                if have == 0x30 {
                    return Step::Done;
                }
                for (bit, key) in [(0x10, "x"), (0x20, "y")] {
                    if have & bit == 0 {
                        call.ask(key, Capability::Elicitation, &|w| w.raw_value(b"{}"));
                    }
                }
                Step::Pending
            }
        }
    }
    fn cancel_tool(&mut self, tool: usize, state: u32) {
        self.cancelled.push((tool, state));
    }
    fn task_result(&mut self, call: &mut ToolCall<'_>) {
        let kept = std::str::from_utf8(call.request_state().unwrap_or(b"")).unwrap();
        let text = std::format!("result of {} ({kept}, {})", call.tool(), call.state());
        if call.tool() == 2 {
            call.error(&text);
        } else {
            call.text(&text);
        }
    }
}

type S = Server<Dev, 2, 2, 0, 3>;

fn server() -> S {
    let mut s = S::new(Dev::default(), Config::new("t", "1")).unwrap();
    s.set_state_key(StateKey::new([9; 32]));
    s
}

struct Collect(Vec<u8>);

impl Sink for Collect {
    fn write(&mut self, b: &[u8]) -> Result<(), SinkError> {
        self.0.extend_from_slice(b);
        Ok(())
    }
}

/// The lines `line` makes, parsed.
fn lines(s: &mut S, line: &str) -> Vec<Value> {
    let mut out = Collect(Vec::new());
    s.handle(line.as_bytes(), &mut out);
    String::from_utf8(out.0)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The one answer to `line`.
fn one(s: &mut S, line: &str) -> Value {
    let mut all = lines(s, line);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

/// A 2026-07-28 request; `tasks`: its `_meta` declares the extension.
fn req(method: &str, params: Value, tasks: bool) -> String {
    let mut params = params;
    let caps = if tasks {
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({"elicitation": {}})
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    });
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

fn call(s: &mut S, tool: &str, tasks: bool) -> Value {
    one(s, &req("tools/call", json!({"name": tool}), tasks))
}

fn get(s: &mut S, id: &str) -> Value {
    one(s, &req("tasks/get", json!({"taskId": id}), true))
}

fn poll(s: &mut S) {
    let mut out = Collect(Vec::new());
    s.poll(&mut out);
    assert!(out.0.is_empty(), "a task's poll writes nothing");
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

fn legacy(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params}).to_string()
}

/// A 2025-11-25 `initialize` with the client's `capabilities`; its answer.
fn initialize(s: &mut S, capabilities: Value) -> Value {
    one(
        s,
        &legacy(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "c", "version": "1"}}),
        ),
    )
}

/// A 2025-11-25 `tools/call` of `tool` as a task; the task's id.
fn legacy_task(s: &mut S, tool: &str) -> String {
    let created = one(s, &legacy("tools/call", json!({"name": tool, "task": {}})));
    created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The lines one `Server::poll` writes, parsed.
fn polled(s: &mut S) -> Vec<Value> {
    let mut out = Collect(Vec::new());
    s.poll(&mut out);
    String::from_utf8(out.0)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn capabilities_of_both_eras_and_tool_execution() {
    let mut s = server();
    let d = one(&mut s, &req("server/discover", json!({}), false));
    let caps = &d["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    assert!(caps.get("tasks").is_none());
    let i = initialize(&mut s, json!({}));
    let caps = &i["result"]["capabilities"];
    assert_eq!(caps["tasks"]["requests"]["tools"]["call"], json!({}));
    assert!(caps.get("extensions").is_none());
    let l = one(&mut s, &legacy("tools/list", json!({})));
    let tools = l["result"]["tools"].as_array().unwrap();
    assert!(
        tools[0].get("execution").is_none(),
        "forbidden: not written"
    );
    assert_eq!(tools[1]["execution"]["taskSupport"], "optional");
    assert_eq!(tools[2]["execution"]["taskSupport"], "required");
    let l = one(&mut s, &req("tools/list", json!({}), true));
    assert!(l["result"]["tools"][1].get("execution").is_none());
    // No task slots: no tasks offered, the methods are unknown.
    let mut none: Server<Dev> = Server::new(Dev::default(), Config::new("t", "1")).unwrap();
    let mut out = Collect(Vec::new());
    none.handle(
        req("server/discover", json!({}), false).as_bytes(),
        &mut out,
    );
    let d: Value = serde_json::from_slice(&out.0).unwrap();
    assert!(d["result"]["capabilities"].get("extensions").is_none());
}

#[test]
fn lifecycle_2026_create_get_complete_with_result_inline() {
    let mut s = server();
    s.device_mut().now = 1_764_660_000_000;
    let created = call(&mut s, "slow", true);
    let r = &created["result"];
    assert_eq!(r["resultType"], "task");
    assert!(r.get("task").is_none() && r.get("content").is_none());
    assert!(r.get("requestState").is_none() && r.get("inputRequests").is_none());
    assert_eq!(r["status"], "working");
    assert_eq!(r["createdAt"], "2025-12-02T07:20:00.000Z");
    assert_eq!(r["lastUpdatedAt"], r["createdAt"]);
    assert_eq!(r["ttlMs"], 60_000);
    assert_eq!(r["pollIntervalMs"], 500);
    assert!(r.get("ttl").is_none() && r.get("pollInterval").is_none());
    let id = r["taskId"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32);
    let g = get(&mut s, &id);
    assert_eq!(g["result"]["resultType"], "complete");
    assert_eq!(g["result"]["status"], "working");
    assert!(g["result"].get("result").is_none());
    assert!(s.busy());
    s.device_mut().now += 1500;
    for _ in 0..3 {
        poll(&mut s);
    }
    assert!(!s.busy());
    let g = get(&mut s, &id);
    let r = &g["result"];
    assert_eq!(r["status"], "completed");
    assert_eq!(r["lastUpdatedAt"], "2025-12-02T07:20:01.500Z");
    assert!(
        r.get("pollIntervalMs").is_none(),
        "no polling a finished task"
    );
    assert_eq!(r["result"]["content"][0]["text"], "result of 1 (kept, 0)");
    assert!(
        r["result"].get("_meta").is_none(),
        "no related-task in 2026-07-28"
    );
    assert!(r["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    // Fetched again: written again, the same.
    assert_eq!(get(&mut s, &id), g);
}

#[test]
fn ids_are_hmac_derived_and_differ_by_key_and_counter() {
    let mut a = server();
    let one_id = call(&mut a, "slow", true)["result"]["taskId"].clone();
    let two_id = call(&mut a, "slow", true)["result"]["taskId"].clone();
    assert_ne!(one_id, two_id);
    let mut b = S::new(Dev::default(), Config::new("t", "1")).unwrap();
    b.set_state_key(StateKey::new([10; 32]));
    let other = call(&mut b, "slow", true)["result"]["taskId"].clone();
    assert_ne!(one_id, other, "another key, other ids");
    let text = one_id.as_str().unwrap();
    assert!(text.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(text, "00000000000000000000000000000000");
    // Another server's id, a near miss, a counter: unknown here.
    let other = other.as_str().unwrap();
    let mut near = String::from(text);
    near.replace_range(31.., if text.ends_with('0') { "1" } else { "0" });
    for id in [
        other,
        near.as_str(),
        "1",
        "00000000000000000000000000000001",
    ] {
        assert_eq!(code(&get(&mut a, id)), -32602, "{id}");
    }
}

#[test]
fn gating_without_the_extension_2026() {
    let mut s = server();
    for (m, p) in [
        ("tasks/get", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "x"})),
    ] {
        let e = one(&mut s, &req(m, p, false));
        assert_eq!(code(&e), -32021, "{m}");
        assert_eq!(
            e["error"]["data"]["requiredCapabilities"]["extensions"]
                ["io.modelcontextprotocol/tasks"],
            json!({})
        );
    }
    // A required tool without the extension: -32021 before the device runs.
    let e = call(&mut s, "must", false);
    assert_eq!(code(&e), -32021);
    assert!(e["error"]["data"]["requiredCapabilities"]["extensions"].is_object());
    // An optional one runs as an ordinary call (a job, answered when done).
    let mut out = Collect(Vec::new());
    s.handle(
        req("tools/call", json!({"name": "slow"}), false).as_bytes(),
        &mut out,
    );
    assert!(out.0.is_empty() && s.is_pending(b"1"));
    for _ in 0..3 {
        s.poll(&mut out);
    }
    let v: Value = serde_json::from_slice(&out.0).unwrap();
    assert_eq!(v["result"]["content"][0]["text"], "slow done");
    assert!(v["result"].get("taskId").is_none());
    // A forbidden tool is never a task, and a legacy `task` param is ignored.
    let v = one(
        &mut s,
        &req(
            "tools/call",
            json!({"name": "quick", "task": {"ttl": 5}}),
            true,
        ),
    );
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["content"][0]["text"], "hi");
}

#[test]
fn removed_methods_unknown_and_missing_ids_2026() {
    let mut s = server();
    for m in ["tasks/result", "tasks/list"] {
        assert_eq!(
            code(&one(&mut s, &req(m, json!({"taskId": "x"}), true))),
            -32601
        );
    }
    assert_eq!(
        code(&get(&mut s, "tasks-conformance-nonexistent-12345")),
        -32602
    );
    assert_eq!(
        code(&one(&mut s, &req("tasks/get", json!({}), true))),
        -32602
    );
    assert_eq!(
        code(&one(
            &mut s,
            &req("tasks/cancel", json!({"taskId": 3}), true)
        )),
        -32602
    );
    assert_eq!(
        code(&one(&mut s, &req("tasks/nothing", json!({}), true))),
        -32601
    );
}

#[test]
fn tool_error_completes_protocol_error_fails_2026() {
    let mut s = server();
    let must = call(&mut s, "must", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let boom = call(&mut s, "boom", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..3 {
        poll(&mut s);
    }
    let g = get(&mut s, &must);
    assert_eq!(g["result"]["status"], "completed");
    assert_eq!(g["result"]["result"]["isError"], true);
    let g = get(&mut s, &boom);
    assert_eq!(g["result"]["status"], "failed");
    assert_eq!(g["result"]["statusMessage"], "boom");
    assert_eq!(
        g["result"]["error"],
        json!({"code": -32603, "message": "boom"})
    );
    assert!(g["result"].get("result").is_none());
}

#[test]
fn cancel_acks_and_is_idempotent_2026() {
    let mut s = server();
    let id = call(&mut s, "slow", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    poll(&mut s);
    let ack = one(&mut s, &req("tasks/cancel", json!({"taskId": id}), true));
    let r = ack["result"].as_object().unwrap();
    assert_eq!(r["resultType"], "complete");
    for k in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(!r.contains_key(k), "{k}");
    }
    // One round by the poll, one by the cancel itself (a task request runs them).
    assert_eq!(s.device().cancelled, [(1, 1)]);
    assert_eq!(get(&mut s, &id)["result"]["status"], "cancelled");
    assert!(!s.busy(), "a cancelled task is not polled");
    let again = one(&mut s, &req("tasks/cancel", json!({"taskId": id}), true));
    assert_eq!(again["result"]["resultType"], "complete");
    assert_eq!(s.device().cancelled.len(), 1, "cancelled once");
    assert_eq!(
        get(&mut s, &id)["result"]["status"],
        "cancelled",
        "terminal is final"
    );
}

#[test]
fn input_required_update_and_partial_answers_2026() {
    let mut s = server();
    let id = call(&mut s, "ask", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    poll(&mut s);
    assert!(!s.busy(), "waiting for input: nothing to poll");
    let g = get(&mut s, &id);
    assert_eq!(g["result"]["status"], "input_required");
    assert_eq!(
        g["result"]["inputRequests"],
        json!({"a": {"method": "elicitation/create", "params": {"message": "A?"}}})
    );
    assert!(g["result"].get("requestState").is_none());
    // Unknown keys are acked and ignored.
    let ack = one(
        &mut s,
        &req(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"zz": {"action": "accept"}}}),
            true,
        ),
    );
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("status").is_none());
    assert_eq!(get(&mut s, &id)["result"]["status"], "input_required");
    let bad = req("tasks/update", json!({"taskId": id}), true);
    assert_eq!(code(&one(&mut s, &bad)), -32602);
    one(
        &mut s,
        &req(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"a": {"action": "accept"}}}),
            true,
        ),
    );
    let g = get(&mut s, &id);
    assert_eq!(g["result"]["status"], "completed");
    assert_eq!(
        g["result"]["result"]["content"][0]["text"],
        "result of 4 (kept, 100)"
    );

    // Two requests at once, answered one at a time.
    let id = call(&mut s, "two", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    poll(&mut s);
    let g = get(&mut s, &id);
    let keys: Vec<&String> = g["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["x", "y"]);
    one(
        &mut s,
        &req(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"x": {"action": "accept"}}}),
            true,
        ),
    );
    let g = get(&mut s, &id);
    assert_eq!(g["result"]["status"], "input_required");
    let keys: Vec<&String> = g["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["y"], "the answered key is gone");
    // An answer to the answered key again is ignored.
    one(
        &mut s,
        &req(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"x": {"action": "accept"}}}),
            true,
        ),
    );
    assert_eq!(get(&mut s, &id)["result"]["status"], "input_required");
    one(
        &mut s,
        &req(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"y": {"action": "accept"}}}),
            true,
        ),
    );
    assert_eq!(get(&mut s, &id)["result"]["status"], "completed");
}

#[test]
fn expiry_on_the_device_clock() {
    let mut s = server();
    let id = call(&mut s, "slow", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    s.device_mut().now = 60_000;
    assert_eq!(
        get(&mut s, &id)["result"]["status"],
        "working",
        "not before its TTL"
    );
    s.device_mut().now = 60_001;
    assert_eq!(code(&get(&mut s, &id)), -32602, "forgotten after it");
    assert_eq!(
        s.device().cancelled,
        [(1, 2)], // one round by the first get
        "a running task is cancelled first"
    );
    assert!(!s.busy());
}

#[test]
fn a_full_table_refuses_new_tasks_and_keeps_the_old() {
    let mut s = server();
    let ids: Vec<String> = (0..3)
        .map(|_| {
            call(&mut s, "slow", true)["result"]["taskId"]
                .as_str()
                .unwrap()
                .into()
        })
        .collect();
    let e = call(&mut s, "must", true);
    assert_eq!(code(&e), -32603);
    assert_eq!(e["error"]["message"], "Task table full");
    // An optional tool runs as an ordinary call instead.
    let mut out = Collect(Vec::new());
    s.handle(
        req("tools/call", json!({"name": "slow"}), true).as_bytes(),
        &mut out,
    );
    assert!(out.0.is_empty() && s.is_pending(b"1"));
    for id in &ids {
        assert_eq!(get(&mut s, id)["result"]["taskId"], id.as_str());
    }
    // A slot freed by expiry takes a new task.
    s.device_mut().now = 70_000;
    assert_eq!(call(&mut s, "must", true)["result"]["resultType"], "task");
}

#[test]
fn no_key_no_tasks() {
    let mut s = S::new(Dev::default(), Config::new("t", "1")).unwrap();
    assert_eq!(code(&call(&mut s, "must", true)), -32603);
    let d = one(&mut s, &req("server/discover", json!({}), false));
    assert!(
        d["result"]["capabilities"].get("extensions").is_none(),
        "not offered"
    );
    assert_eq!(code(&get(&mut s, "x")), -32601);
    let mut out = Collect(Vec::new());
    s.handle(
        req("tools/call", json!({"name": "slow"}), true).as_bytes(),
        &mut out,
    );
    assert!(
        s.is_pending(b"1"),
        "an optional tool runs as an ordinary call"
    );
}

#[test]
fn legacy_2025_tasks() {
    let mut s = server();
    initialize(&mut s, json!({"elicitation": {}}));
    let created = one(
        &mut s,
        &legacy(
            "tools/call",
            json!({"name": "slow", "task": {"ttl": 30000}}),
        ),
    );
    let t = &created["result"]["task"];
    assert_eq!(t["status"], "working");
    assert_eq!(t["ttl"], 30_000);
    assert_eq!(t["pollInterval"], 500);
    assert!(t.get("ttlMs").is_none() && created["result"].get("resultType").is_none());
    let id = t["taskId"].as_str().unwrap().to_string();
    let g = one(&mut s, &legacy("tasks/get", json!({"taskId": id})));
    assert_eq!(g["result"]["taskId"], id.as_str());
    assert_eq!(g["result"]["status"], "working");
    // tasks/result waits for the end, then answers with the result.
    let mut out = Collect(Vec::new());
    s.handle(
        legacy("tasks/result", json!({"taskId": id})).as_bytes(),
        &mut out,
    );
    assert!(out.0.is_empty() && s.is_pending(b"5"));
    for _ in 0..3 {
        s.poll(&mut out);
    }
    let r: Value = serde_json::from_slice(&out.0).unwrap();
    assert_eq!(r["id"], 5);
    assert_eq!(r["result"]["content"][0]["text"], "result of 1 (kept, 0)");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert!(!s.is_pending(b"5"));
    let again = one(&mut s, &legacy("tasks/result", json!({"taskId": id})));
    assert_eq!(again["result"], r["result"]);
    // A finished task cannot be cancelled; a running one can.
    assert_eq!(
        code(&one(&mut s, &legacy("tasks/cancel", json!({"taskId": id})))),
        -32602
    );
    let id2 = legacy_task(&mut s, "slow");
    let c = one(&mut s, &legacy("tasks/cancel", json!({"taskId": id2})));
    assert_eq!(c["result"]["status"], "cancelled");
    let e = one(&mut s, &legacy("tasks/result", json!({"taskId": id2})));
    assert_eq!(code(&e), -32603);
    // tasks/list: both, a page at a time.
    let l = one(&mut s, &legacy("tasks/list", json!({})));
    assert_eq!(l["result"]["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(
        code(&one(&mut s, &legacy("tasks/list", json!({"cursor": "9"})))),
        -32602
    );
    // Errors of the era.
    assert_eq!(
        code(&one(
            &mut s,
            &legacy("tools/call", json!({"name": "quick", "task": {}}))
        )),
        -32601
    );
    assert_eq!(
        code(&one(&mut s, &legacy("tools/call", json!({"name": "must"})))),
        -32601
    );
    assert_eq!(
        code(&one(&mut s, &legacy("tasks/update", json!({"taskId": id})))),
        -32601
    );
    assert_eq!(
        code(&one(
            &mut s,
            &legacy("tasks/get", json!({"taskId": "nope"}))
        )),
        -32602
    );
    // A tool error fails the task in 2025-11-25; tasks/result still gives the result.
    let id3 = legacy_task(&mut s, "must");
    for _ in 0..3 {
        poll(&mut s);
    }
    assert_eq!(
        one(&mut s, &legacy("tasks/get", json!({"taskId": id3})))["result"]["status"],
        "failed"
    );
    let r = one(&mut s, &legacy("tasks/result", json!({"taskId": id3})));
    assert_eq!(r["result"]["isError"], true);
}

#[test]
fn legacy_task_asks_are_input_required_and_the_session_end_drops_them() {
    let mut s = server();
    initialize(&mut s, json!({"elicitation": {}}));
    let id = legacy_task(&mut s, "ask");
    poll(&mut s);
    let g = one(&mut s, &legacy("tasks/get", json!({"taskId": id})));
    assert_eq!(g["result"]["status"], "input_required");
    let stateless = call(&mut s, "slow", true)["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    s.reset();
    assert_eq!(s.device().cancelled, [(4, 3)], "the session's task");
    assert_eq!(
        get(&mut s, &stateless)["result"]["status"],
        "working",
        "not a session's"
    );
    s.end_tasks();
    assert_eq!(code(&get(&mut s, &stateless)), -32602);
    assert!(!s.busy());
}

/// A 2025-11-25 task that waits for input asks on the stream of the `tasks/result`
/// waiting for it: one request per unanswered key, tagged with the task, sent once;
/// each response runs a round; the result follows the last.
#[test]
fn legacy_task_input_goes_out_on_the_tasks_result_stream() {
    let mut s = server();
    initialize(&mut s, json!({"elicitation": {}}));
    let id = legacy_task(&mut s, "two");
    poll(&mut s);
    let g = one(&mut s, &legacy("tasks/get", json!({"taskId": id})));
    assert_eq!(g["result"]["status"], "input_required");
    poll(&mut s); // no `tasks/result` waits: nothing is sent
    assert!(!s.busy());
    let mut out = Collect(Vec::new());
    s.handle(
        legacy("tasks/result", json!({"taskId": id})).as_bytes(),
        &mut out,
    );
    assert!(out.0.is_empty() && s.is_pending(b"5") && s.busy());
    let requests = polled(&mut s);
    assert_eq!(requests.len(), 2, "{requests:?}");
    let related = json!({"io.modelcontextprotocol/related-task": {"taskId": id}});
    for r in &requests {
        assert_eq!(r["method"], "elicitation/create");
        assert_eq!(r["params"], json!({"_meta": related}), "{r}");
    }
    assert!(polled(&mut s).is_empty(), "each request is sent once");
    assert!(!s.busy(), "waiting for the client");
    let response =
        |rid: &Value, body: &str| std::format!(r#"{{"jsonrpc":"2.0","id":{rid},{body}}}"#);
    // An error response: the round sees no answer and asks again, with a new id.
    let first = requests[0]["id"].clone();
    assert!(lines(
        &mut s,
        &response(&first, r#""error":{"code":-1,"message":"no"}"#)
    )
    .is_empty());
    let again = polled(&mut s);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_ne!(again[0]["id"], first);
    // Both answered: the task completes and the waiting tasks/result gets its result.
    for r in [&again[0], &requests[1]] {
        let accept = response(&r["id"], r#""result":{"action":"accept"}"#);
        assert!(lines(&mut s, &accept).is_empty());
    }
    let done = polled(&mut s);
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(done[0]["id"], 5);
    assert_eq!(
        done[0]["result"]["content"][0]["text"],
        "result of 5 (kept, 48)"
    );
    assert_eq!(done[0]["result"]["_meta"], related);
    assert!(!s.is_pending(b"5") && !s.busy());
    // A request whose params have members: `_meta` after them.
    let id = legacy_task(&mut s, "ask");
    poll(&mut s);
    assert!(lines(&mut s, &legacy("tasks/result", json!({"taskId": id}))).is_empty());
    let r = polled(&mut s);
    assert_eq!(
        r[0]["params"],
        json!({"message": "A?", "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}})
    );
    // A response to no request of any task or call is ignored.
    assert!(lines(&mut s, &response(&json!(999_999), r#""result":{}"#)).is_empty());
    let accept = response(&r[0]["id"], r#""result":{"action":"accept"}"#);
    assert!(lines(&mut s, &accept).is_empty());
    let done = polled(&mut s);
    assert_eq!(
        done[0]["result"]["content"][0]["text"],
        "result of 4 (kept, 100)"
    );
}

/// A 2025-11-25 task whose replay does not ask what its round asked (against the
/// rule) sends nothing, works on instead of waiting for nothing, and ends.
#[test]
fn legacy_task_that_asks_no_more_works_on() {
    let mut s = server();
    initialize(&mut s, json!({"elicitation": {}}));
    let id = legacy_task(&mut s, "fickle");
    poll(&mut s);
    let g = one(&mut s, &legacy("tasks/get", json!({"taskId": id})));
    assert_eq!(g["result"]["status"], "input_required");
    assert!(lines(&mut s, &legacy("tasks/result", json!({"taskId": id}))).is_empty());
    let mut r = Vec::new();
    for _ in 0..10 {
        if !s.busy() {
            break;
        }
        r.extend(polled(&mut s));
    }
    assert_eq!(r.len(), 1, "no request, then the result: {r:?}");
    assert_eq!(r[0]["id"], 5);
    assert_eq!(
        r[0]["result"]["content"][0]["text"],
        "result of 6 (kept, 3)"
    );
    assert!(!s.busy());
}

/// The RAM per task slot stated in the module docs.
#[test]
fn a_task_slot_is_about_as_large_as_documented() {
    let size = core::mem::size_of::<Option<super::Task>>();
    std::println!("task slot: {size} bytes");
    assert!(size <= 288, "{size}");
}
