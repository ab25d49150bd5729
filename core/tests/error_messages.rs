//! Every public error type of emcp says what went wrong in its `Display`, and is a
//! `core::error::Error` whose `source` is the error beneath it, if any.

use core::error::Error;

use emcp::model::schema::Plan;
use emcp::transport::serve::ServeError;
use emcp::wire::error::{DispatchError, RequestError, RpcError};
use emcp::wire::json::{parse, BufferTooSmall, JsonWriter, ScanError, SinkError};
use emcp::ReadError;

/// An I/O error of a transport, as `embedded-io` errors are.
#[derive(Debug)]
struct Unplugged;

impl core::fmt::Display for Unplugged {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("cable unplugged")
    }
}

impl Error for Unplugged {}

/// The error's message and its source's, if any.
fn shown(e: &dyn Error) -> (String, Option<String>) {
    (e.to_string(), e.source().map(ToString::to_string))
}

#[test]
fn errors_of_the_wire() {
    assert_eq!(
        shown(&ScanError::TooDeep),
        ("JSON nests too deeply".into(), None)
    );
    assert_eq!(shown(&SinkError::Full), ("output full".into(), None));
    assert_eq!(
        shown(&BufferTooSmall),
        ("the decoded string does not fit the buffer".into(), None)
    );
    assert_eq!(
        shown(&RequestError::Parse(ScanError::Syntax)),
        (
            "Parse error".into(),
            Some("input is not a single JSON value".into())
        )
    );
    assert_eq!(
        shown(&RpcError::from(DispatchError::UnknownTool)),
        ("Unknown tool".into(), None)
    );
    // What `wire::rpc::parse` rejects says what the client is answered.
    let rejected = emcp::wire::rpc::parse(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#)
        .err()
        .unwrap();
    assert_eq!(
        shown(&rejected),
        ("Invalid Request: jsonrpc must be \"2.0\"".into(), None)
    );
}

#[test]
fn errors_of_the_device_and_transports() {
    assert_eq!(
        shown(&ReadError::NotFound),
        ("no such resource".into(), None)
    );
    assert_eq!(
        shown(&ServeError::<Unplugged, Unplugged>::Read(Unplugged)),
        (
            "reading the input failed".into(),
            Some("cable unplugged".into())
        )
    );
    assert_eq!(
        shown(&ServeError::<Unplugged, Unplugged>::Write(None)),
        ("the output accepted no byte".into(), None)
    );
}

#[cfg(feature = "input")]
#[test]
fn a_request_state_that_does_not_verify() {
    assert_eq!(
        shown(&emcp::state::seal::StateError),
        (
            "requestState does not verify: not sealed by this server's key, or altered".into(),
            None
        )
    );
}

#[cfg(feature = "mqtt")]
#[test]
fn errors_of_mqtt() {
    use emcp::transport::mqtt::packet::{Full, Malformed};
    use emcp::transport::mqtt::MqttError;
    assert_eq!(
        shown(&MqttError::<Unplugged, Unplugged>::Refused(0x87)),
        (
            "the broker refused the connection (reason code 0x87: not authorized)".into(),
            None
        )
    );
    assert_eq!(
        shown(&MqttError::<Unplugged, Unplugged>::Refused(0x86)).0,
        "the broker refused the connection (reason code 0x86: bad user name or password)"
    );
    assert_eq!(
        shown(&MqttError::<Unplugged, Unplugged>::Refused(0x9f)).0,
        "the broker refused the connection (reason code 0x9f)"
    );
    assert_eq!(
        shown(&MqttError::<Unplugged, Unplugged>::Write(Some(Unplugged))),
        (
            "writing to the broker failed".into(),
            Some("cable unplugged".into())
        )
    );
    assert_eq!(
        shown(&Malformed),
        ("the packet does not follow MQTT 5".into(), None)
    );
    assert_eq!(
        shown(&Full),
        ("no room left in the output buffer".into(), None)
    );
}

/// A violation's `Display` is the message the server answers with, decoded: the JSON
/// string `write_message` writes, read back.
#[test]
fn a_violation_says_what_the_tool_result_says() {
    let schema = r#"{"type":"object","properties":{"level":{"type":"integer","maximum":9},"mode":{"enum":["a","b\n"]},"name":{"type":"string","minLength":2}},"required":["name"],"additionalProperties":false}"#;
    let plan = Plan::compile(schema);
    assert!(plan.is_compiled(), "checked without the walker too");
    for (args, expected) in [
        (
            r#"{"name":"ab","level":12}"#,
            "Invalid argument \"level\": must be <= 9",
        ),
        (
            r#"{"name":"ab","mode":"c"}"#,
            "Invalid argument \"mode\": must be one of [\"a\",\"b\\n\"]",
        ),
        (r#"{"level":1}"#, "Missing required argument \"name\""),
        (
            r#"{"name":"x"}"#,
            "Invalid argument \"name\": must have at least this many characters: 2",
        ),
        (
            r#"{"name":"ab","c\u00f6lor":1}"#,
            "Unknown argument \"c\u{f6}lor\": additional properties are not allowed",
        ),
        (
            r#"{"name":"ab","level":"3"}"#,
            "Invalid argument \"level\": expected type integer",
        ),
    ] {
        let args = parse(args.as_bytes()).unwrap();
        let violation = plan.validate(Some(args)).unwrap_err();
        let mut buf = heapless::Vec::<u8, 256>::new();
        violation.write_message(&mut JsonWriter::new(&mut buf));
        let answered: String = serde_json::from_slice(&buf).unwrap();
        assert_eq!(violation.to_string(), expected);
        assert_eq!(violation.to_string(), answered);
        assert!(violation.source().is_none());
    }
}
