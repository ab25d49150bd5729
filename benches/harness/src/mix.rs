//! The request mix and the per-kind response checks (docs/board.md).

use serde_json::Value;

/// Which protocol era the requests are written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// Initialize era: `initialize` + `notifications/initialized`, then plain requests.
    Legacy,
    /// 2026-07-28: no handshake state; every request carries `params._meta`.
    Stateless,
}

impl Era {
    /// `legacy` / `stateless`.
    pub fn name(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Stateless => "stateless",
        }
    }

    /// The protocol version sent when none is given.
    pub fn default_version(self) -> &'static str {
        match self {
            Era::Legacy => "2025-06-18",
            Era::Stateless => "2026-07-28",
        }
    }
}

/// One kind of request in the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `tools/call read_sensor {"sensor": ...}`.
    ReadSensor(&'static str),
    /// `tools/call set_led {"color":"red","brightness":50}`.
    SetLed,
    /// `resources/read sensor://temperature`.
    ReadTemperature,
    /// `resources/read log://samples` (the 4 KiB blob).
    ReadBlob,
    /// `tools/list`.
    ToolsList,
}

/// The mix, cycled through by request id (id 1 is `MIX[0]`).
pub const MIX: [Kind; 7] = [
    Kind::ReadSensor("temperature"),
    Kind::ReadSensor("humidity"),
    Kind::ReadSensor("pressure"),
    Kind::SetLed,
    Kind::ReadTemperature,
    Kind::ReadBlob,
    Kind::ToolsList,
];

/// The id of the handshake request (`initialize` / `server/discover`).
pub const HANDSHAKE_ID: u64 = 0;

/// The kind of request `id` (ids start at 1).
pub fn kind_of(id: u64) -> Kind {
    MIX[(id.wrapping_sub(1) % MIX.len() as u64) as usize]
}

/// Writes JSON-RPC lines for one era and protocol version.
#[derive(Clone, Debug)]
pub struct Writer {
    era: Era,
    version: String,
}

impl Writer {
    /// A writer for `era` announcing `version`.
    pub fn new(era: Era, version: &str) -> Self {
        Self {
            era,
            version: version.to_string(),
        }
    }

    /// The era.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// `"_meta":{...}` for a 2026-07-28 request (exactly as tests/transcripts/stateless.txt).
    fn meta(&self) -> String {
        format!(
            "\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{}\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}",
            self.version
        )
    }

    /// The handshake lines: `initialize` + `notifications/initialized` (legacy), or
    /// `server/discover` (stateless). Only the first one is answered.
    pub fn handshake(&self) -> Vec<String> {
        let id = HANDSHAKE_ID;
        let v = &self.version;
        let client = r#"{"name":"stdio-harness","version":"0.1.0"}"#;
        match self.era {
            Era::Legacy => vec![
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}},"clientInfo":{client}}}}}"#
                ),
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
            ],
            Era::Stateless => vec![format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{v}","io.modelcontextprotocol/clientInfo":{client},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            )],
        }
    }

    /// Check the handshake result; `Ok(Some(note))` for something worth telling.
    pub fn check_handshake(&self, result: &Value) -> Result<Option<String>, String> {
        match self.era {
            Era::Legacy => {
                let got = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .ok_or("initialize result has no protocolVersion")?;
                if got != self.version {
                    return Ok(Some(format!(
                        "server answered protocolVersion {got} (asked for {})",
                        self.version
                    )));
                }
                Ok(None)
            }
            Era::Stateless => {
                check_result_type(result)?;
                let versions = result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .ok_or("server/discover result has no supportedVersions")?;
                if !versions.iter().any(|v| v.as_str() == Some(&self.version)) {
                    return Err(format!(
                        "server/discover: {} not in supportedVersions {}",
                        self.version,
                        Value::Array(versions.clone())
                    ));
                }
                Ok(None)
            }
        }
    }

    /// Append the request with `id` (one line, `\n`-terminated) to `out`.
    pub fn request(&self, id: u64, out: &mut Vec<u8>) {
        let meta = match self.era {
            Era::Legacy => String::new(),
            Era::Stateless => format!(",{}", self.meta()),
        };
        let line = match kind_of(id) {
            Kind::ReadSensor(s) => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_sensor","arguments":{{"sensor":"{s}"}}{meta}}}}}"#
            ),
            Kind::SetLed => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"set_led","arguments":{{"color":"red","brightness":50}}{meta}}}}}"#
            ),
            Kind::ReadTemperature => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"sensor://temperature"{meta}}}}}"#
            ),
            Kind::ReadBlob => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":"log://samples"{meta}}}}}"#
            ),
            Kind::ToolsList => {
                let params = match self.era {
                    Era::Legacy => "{}".to_string(),
                    Era::Stateless => format!("{{{}}}", self.meta()),
                };
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{params}}}"#)
            }
        };
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }

    /// Check the `result` of the response to request `id`.
    pub fn check(&self, id: u64, result: &Value) -> Result<(), String> {
        if self.era == Era::Stateless {
            check_result_type(result)?;
        }
        match kind_of(id) {
            Kind::ReadSensor(s) => {
                let want = match s {
                    "temperature" => "temperature: 21.5 C",
                    "humidity" => "humidity: 40.0 %",
                    _ => "pressure: 1013.2 hPa",
                };
                check_tool_text(result, want)
            }
            Kind::SetLed => check_tool_text(result, "led: red 50%"),
            Kind::ReadTemperature => {
                let c = first_content(result, "sensor://temperature")?;
                let text = c
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or("sensor://temperature: no text")?;
                let parsed: Value = serde_json::from_str(text)
                    .map_err(|e| format!("sensor://temperature: text {text:?} is not JSON: {e}"))?;
                if parsed != serde_json::json!({"celsius": 21.5}) {
                    return Err(format!(
                        "sensor://temperature: text {text:?}, want {{\"celsius\":21.5}}"
                    ));
                }
                Ok(())
            }
            Kind::ReadBlob => {
                let c = first_content(result, "log://samples")?;
                let blob = c
                    .get("blob")
                    .and_then(Value::as_str)
                    .ok_or("log://samples: no blob")?;
                let bytes = base64_decode(blob).ok_or("log://samples: blob is not base64")?;
                if bytes.len() != 4096 {
                    return Err(format!(
                        "log://samples: blob is {} bytes, want 4096",
                        bytes.len()
                    ));
                }
                if let Some(i) = (0..bytes.len()).find(|&i| bytes[i] != ((i * 31 + 7) % 256) as u8)
                {
                    return Err(format!("log://samples: byte {i} is wrong"));
                }
                Ok(())
            }
            Kind::ToolsList => {
                let tools = result
                    .get("tools")
                    .and_then(Value::as_array)
                    .ok_or("tools/list: no tools array")?;
                let names: Vec<&str> = tools
                    .iter()
                    .map(|t| t.get("name").and_then(Value::as_str).unwrap_or("?"))
                    .collect();
                if names != ["read_sensor", "set_led", "move_servo"] {
                    return Err(format!(
                        "tools/list: tools {names:?}, want [read_sensor, set_led, move_servo]"
                    ));
                }
                Ok(())
            }
        }
    }
}

fn check_result_type(result: &Value) -> Result<(), String> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("complete") => Ok(()),
        other => Err(format!("resultType {other:?}, want \"complete\"")),
    }
}

fn check_tool_text(result: &Value, want: &str) -> Result<(), String> {
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(format!("tool result has isError: true: {result}"));
    }
    let text = result
        .get("content")
        .and_then(|c| c.get(0))
        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|c| c.get("text"))
        .and_then(Value::as_str)
        .ok_or_else(|| format!("tool result has no text content: {result}"))?;
    if text != want {
        return Err(format!("tool text {text:?}, want {want:?}"));
    }
    Ok(())
}

fn first_content<'a>(result: &'a Value, uri: &str) -> Result<&'a Value, String> {
    let c = result
        .get("contents")
        .and_then(|c| c.get(0))
        .ok_or_else(|| format!("{uri}: no contents"))?;
    match c.get("uri").and_then(Value::as_str) {
        Some(u) if u == uri => Ok(c),
        other => Err(format!("{uri}: contents[0].uri is {other:?}")),
    }
}

/// Standard base64 (with or without `=` padding); `None` on any other byte.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(line: &[u8]) -> Value {
        serde_json::from_slice(line).unwrap()
    }

    #[test]
    fn requests_are_json_lines_with_meta_in_stateless() {
        for era in [Era::Legacy, Era::Stateless] {
            let w = Writer::new(era, era.default_version());
            for id in 1..=7 {
                let mut buf = Vec::new();
                w.request(id, &mut buf);
                assert_eq!(buf.last(), Some(&b'\n'));
                assert_eq!(buf.iter().filter(|&&b| b == b'\n').count(), 1);
                let v = parse(&buf);
                assert_eq!(v["id"], id);
                assert_eq!(v["jsonrpc"], "2.0");
                let meta = &v["params"]["_meta"];
                match era {
                    Era::Legacy => assert!(meta.is_null()),
                    Era::Stateless => {
                        assert_eq!(
                            meta["io.modelcontextprotocol/protocolVersion"],
                            "2026-07-28"
                        )
                    }
                }
            }
            for line in w.handshake() {
                parse(line.as_bytes());
            }
        }
    }

    #[test]
    fn checks_accept_the_board_and_reject_wrong_content() {
        let w = Writer::new(Era::Legacy, "2025-06-18");
        let text = |t: &str| json!({"content":[{"type":"text","text":t}]});
        assert!(w.check(1, &text("temperature: 21.5 C")).is_ok());
        assert!(w.check(1, &text("temperature: 21.6 C")).is_err());
        assert!(w.check(2, &text("humidity: 40.0 %")).is_ok());
        assert!(w.check(3, &text("pressure: 1013.2 hPa")).is_ok());
        assert!(w.check(4, &text("led: red 50%")).is_ok());
        let mut err = text("led: red 50%");
        err["isError"] = json!(true);
        assert!(w.check(4, &err).is_err());
        let res = |t: &str| json!({"contents":[{"uri":"sensor://temperature","text":t}]});
        assert!(w.check(5, &res(r#"{"celsius":21.5}"#)).is_ok());
        assert!(w.check(5, &res(r#"{"celsius": 21.5}"#)).is_ok());
        assert!(w.check(5, &res(r#"{"celsius":22}"#)).is_err());
        let tools =
            |n: &[&str]| json!({"tools": n.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()});
        assert!(w
            .check(7, &tools(&["read_sensor", "set_led", "move_servo"]))
            .is_ok());
        assert!(w.check(7, &tools(&["read_sensor", "set_led"])).is_err());
        // Stateless results must say resultType complete.
        let m = Writer::new(Era::Stateless, "2026-07-28");
        assert!(m.check(1, &text("temperature: 21.5 C")).is_err());
        let mut ok = text("temperature: 21.5 C");
        ok["resultType"] = json!("complete");
        assert!(m.check(1, &ok).is_ok());
    }

    #[test]
    fn blob_check_decodes_base64() {
        let w = Writer::new(Era::Legacy, "2025-06-18");
        let bytes: Vec<u8> = (0..4096).map(|i| ((i * 31 + 7) % 256) as u8).collect();
        let enc = base64_encode(&bytes);
        let blob = |b: &str| json!({"contents":[{"uri":"log://samples","blob":b}]});
        assert!(w.check(6, &blob(&enc)).is_ok());
        assert!(w.check(6, &blob(&enc[..enc.len() - 8])).is_err());
        let mut wrong = bytes.clone();
        wrong[100] ^= 1;
        assert!(w.check(6, &blob(&base64_encode(&wrong))).is_err());
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGk").unwrap(), b"hi");
        assert!(base64_decode("a-b").is_none());
    }

    fn base64_encode(b: &[u8]) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in b.chunks(3) {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            for i in 0..4 {
                if i <= c.len() {
                    s.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
                } else {
                    s.push('=');
                }
            }
        }
        s
    }
}
