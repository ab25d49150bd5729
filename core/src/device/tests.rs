//! Unit tests of the request contexts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
extern crate std;
use super::*;
use crate::wire::json::JsonWriter;
use crate::wire::json::SliceSink;
use crate::wire::rpc::Id;
use crate::wire::version::Era;

/// What a tool call writes for `f`, closed as the server closes it.
fn call_output(era: Era, f: impl FnOnce(&mut ToolCall<'_>)) -> std::string::String {
    let mut buf = [0u8; 512];
    let mut sink = SliceSink::new(&mut buf);
    let ex = Exchange {
        id: Id::from_raw(b"7"),
        era,
        progress_token: None,
        log_level: None,
        caps: Default::default(),
        tasks: Default::default(),
    };
    let mut call = ToolCall::new(JsonWriter::new(&mut sink), ex, 0, None);
    f(&mut call);
    call.close();
    call.w.end(b"}}\n");
    assert!(call.w.is_ok());
    std::string::String::from_utf8(sink.written().to_vec()).unwrap()
}

/// Contents entries of a read, the text entry's `}` going out with what follows.
#[test]
fn read_entries_end_with_what_follows() {
    let read = |f: &dyn Fn(&mut ResourceRead<'_>)| {
        let mut buf = [0u8; 512];
        let mut sink = SliceSink::new(&mut buf);
        let ex = Exchange {
            id: Id::from_raw(b"7"),
            era: Era::Legacy,
            progress_token: None,
            log_level: None,
            caps: Default::default(),
            tasks: Default::default(),
        };
        let mut r = ResourceRead::new(
            JsonWriter::new(&mut sink),
            ex,
            "u:x",
            Target::Resource(0),
            None,
        );
        f(&mut r);
        r.close();
        r.w.end(b"}}\n");
        assert!(r.w.is_ok());
        std::string::String::from_utf8(sink.written().to_vec()).unwrap()
    };
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"contents":["#;
    assert_eq!(
        read(&|r| assert!(r.text(Some("t/p"), "a"))),
        std::format!(
            "{HEAD}{}]}}}}\n",
            r#"{"uri":"u:x","mimeType":"t/p","text":"a"}"#
        )
    );
    assert_eq!(
        read(&|r| assert!(r.text(None, "a") && r.blob(None, b"x") && r.text(None, "c"))),
        std::format!(
            "{HEAD}{}]}}}}\n",
            r#"{"uri":"u:x","text":"a"},{"uri":"u:x","blob":"eA=="},{"uri":"u:x","text":"c"}"#
        )
    );
    assert_eq!(
        read(&|r| assert!(r.text_begin(None) && r.part("p") && r.text(None, "q"))),
        std::format!(
            "{HEAD}{}]}}}}\n",
            r#"{"uri":"u:x","text":"p"},{"uri":"u:x","text":"q"}"#
        )
    );
    assert_eq!(read(&|_| {}), std::format!("{HEAD}]}}}}\n"));
}

/// What a test tool does with its call.
type Handler = dyn Fn(&mut ToolCall<'_>);

/// Text blocks, whose `}` goes out with what follows them, in every position.
#[test]
fn text_blocks_end_with_what_follows() {
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"#;
    let cases: [(&Handler, &str); 6] = [
        (
            &|c| assert!(c.text("a")),
            r#""content":[{"type":"text","text":"a"}]"#,
        ),
        (
            &|c| assert!(c.text("a") && c.text("b\n")),
            r#""content":[{"type":"text","text":"a"},{"type":"text","text":"b\n"}]"#,
        ),
        (
            &|c| assert!(c.text("a") && c.image("image/png", b"x") && c.text("c")),
            r#""content":[{"type":"text","text":"a"},{"type":"image","mimeType":"image/png","data":"eA=="},{"type":"text","text":"c"}]"#,
        ),
        (
            &|c| {
                assert!(c.text("a"));
                assert!(c.structured(|w| {
                    w.begin_object();
                    w.key("v");
                    w.u64(1);
                    w.end_object();
                }));
                assert!(!c.text("late"));
            },
            r#""content":[{"type":"text","text":"a"}],"structuredContent":{"v":1}"#,
        ),
        (
            &|c| assert!(c.error("no")),
            r#""content":[{"type":"text","text":"no"}],"isError":true"#,
        ),
        (
            &|c| assert!(c.text_begin() && c.part("p") && c.text("q")),
            r#""content":[{"type":"text","text":"p"},{"type":"text","text":"q"}]"#,
        ),
    ];
    for (f, body) in cases {
        assert_eq!(
            call_output(Era::Legacy, f),
            std::format!("{HEAD}{body}}}}}\n")
        );
        assert_eq!(
            call_output(Era::Stateless, f),
            std::format!("{HEAD}\"resultType\":\"complete\",{body}}}}}\n")
        );
    }
}
