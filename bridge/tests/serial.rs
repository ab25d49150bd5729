//! The bridge over a serial port: a pseudo-terminal stands in for the board's USB
//! serial device, behind a symlink re-pointed when the "board" resets (USB
//! re-enumeration under the same name).

mod common;

use std::collections::HashMap;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};

fn serial_bridge(port: &std::path::Path) -> Bridge {
    Bridge::start(&["serial", port.to_str().unwrap(), "--baud", "115200"])
}

/// A legacy session over the port; the board resets in the middle of a pipelined
/// stream and comes back under the same name: requests sent vs. responses received
/// are equal, each exactly once, and the subscription is re-made.
#[test]
fn a_port_that_resets_mid_stream() {
    let dir = TempDir::new("serial-reset");
    let port = dir.path("ttyDEV");
    let once = dir.path("reset").to_str().unwrap().to_owned();
    let board = SerialBoard::start(
        port.clone(),
        vec![
            "--strict".into(),
            "--exit-after".into(),
            "12".into(),
            "--once".into(),
            once,
        ],
        Duration::from_millis(150),
    );
    let mut b = serial_bridge(&port);
    b.send(INIT);
    assert_eq!(b.recv()["id"], "init");
    b.send(INITIALIZED);
    b.send(&request(
        "\"sub\"",
        "resources/subscribe",
        r#"{"uri":"led://state"}"#,
    ));
    assert_eq!(b.recv()["id"], "sub");
    // Two pipelined bursts: the board resets during the first (on its 12th line; the
    // answers it wrote just before may be lost with it, as on a real port); the
    // second is sent while it is away or just back, and is served.
    let mut answers: HashMap<String, usize> = HashMap::new();
    let (mut sent, mut lost, mut served) = (0, 0, 0);
    for burst in 0..2 {
        for i in 0..20 {
            b.send(&call(
                &format!("{}", 100 * (burst + 1) + i),
                "read_sensor",
                r#"{"sensor":"pressure"}"#,
            ));
            sent += 1;
        }
        for _ in 0..20 {
            let v = b.recv();
            assert!(v.get("method").is_none(), "unexpected {v}");
            *answers.entry(v["id"].to_string()).or_default() += 1;
            match error_code(&v) {
                Some(-32000) => lost += 1,
                None => {
                    assert_eq!(v["result"]["structuredContent"]["unit"], "hPa");
                    served += 1;
                }
                Some(c) => panic!("error {c}: {v}"),
            }
        }
    }
    assert_eq!(
        (answers.len(), lost + served),
        (sent, sent),
        "sent vs. received"
    );
    assert!(answers.values().all(|&n| n == 1), "each exactly once");
    assert!(
        lost >= 1,
        "the request the board died on was answered -32000"
    );
    assert!(
        served >= 20,
        "the second burst was served by the new board: {served} served, {lost} lost\n{}",
        b.log()
    );
    // The new board has the session (strict: it refuses without initialize) and
    // the subscription.
    b.send(&call("\"led\"", "set_led", r#"{"color":"green"}"#));
    let mut got = b.until_response(&json!("led"));
    if got.len() == 1 {
        got.push(b.recv());
    }
    assert!(got.iter().all(|v| v.get("error").is_none()), "{got:?}");
    assert!(
        got.iter()
            .any(|v| v["method"] == "notifications/resources/updated"),
        "{got:?}\n{}",
        b.log()
    );
    assert_eq!(*board.resets.lock().unwrap(), 1);
    let rest: Vec<Value> = b.finish();
    assert!(rest.is_empty(), "{rest:?}");
}

/// The bridge starts before the port exists: a request waits for the port, and is
/// answered once it appears.
#[test]
fn a_port_that_appears_later() {
    let dir = TempDir::new("serial-late");
    let port = dir.path("ttyLATE");
    let mut b = serial_bridge(&port);
    b.send(&request("1", "ping", "{}"));
    assert!(b.try_recv(Duration::from_millis(300)).is_none());
    let _board = SerialBoard::start(port.clone(), Vec::new(), Duration::from_millis(50));
    let v = b.recv();
    assert_eq!((v["id"].clone(), v.get("error")), (json!(1), None));
    assert!(b.log().contains("waiting for the device"));
    assert!(b.finish().is_empty());
}
