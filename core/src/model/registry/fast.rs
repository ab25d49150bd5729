//! The registry's fast serialisers, for hosts: a tool's fixed text assembled on the
//! stack and written in few sink writes ([`Joined`]), a descriptor's brace and first
//! key in one write. Their twins in [`super::plain`] write the same bytes one piece
//! at a time (`mod.rs`, `forms_agree`). Compiled on every target.
#![cfg_attr(not(emcp_fast), allow(dead_code))]

use super::{write_titles, Names, Tool};
use crate::wire::json::writer::{Joined, MemberKey};
use crate::wire::json::JsonWriter;

/// [`Tool::write`]: the keys, the short strings and the annotations assembled on the
/// stack ([`Joined`]), the schemas written as they are; about five sink writes
/// instead of two dozen. A string's quotes are part of the keys around it.
pub(super) fn write_tool(tool: &Tool<'_>, w: &mut JsonWriter<'_>) {
    let j = &mut Joined::new();
    w.join_lit(j, b",{\"name\":\"");
    w.join_str(j, tool.name);
    if let Some(t) = tool.title {
        w.join_lit(j, b"\",\"title\":\"");
        w.join_str(j, t);
    }
    if let Some(d) = tool.description {
        w.join_lit(j, b"\",\"description\":\"");
        w.join_str(j, d);
    }
    w.join_lit(j, b"\",\"inputSchema\":");
    w.join_raw(j, tool.input_schema.as_bytes());
    if let Some(s) = tool.output_schema {
        w.join_lit(j, b",\"outputSchema\":");
        w.join_raw(j, s.as_bytes());
    }
    let a = &tool.annotations;
    if a.is_empty() {
        w.join_lit(j, b"}");
    } else {
        // What comes before the next member: 0 the object's brace, 1 a comma,
        // 2 the title's closing quote and a comma.
        let mut at = 0;
        w.join_lit(j, b",\"annotations\":");
        if let Some(t) = a.title {
            w.join_lit(j, b"{\"title\":\"");
            w.join_str(j, t);
            at = 2;
        }
        hint(w, j, &mut at, a.read_only, &hint_texts!("readOnlyHint"));
        hint(
            w,
            j,
            &mut at,
            a.destructive,
            &hint_texts!("destructiveHint"),
        );
        hint(w, j, &mut at, a.idempotent, &hint_texts!("idempotentHint"));
        hint(w, j, &mut at, a.open_world, &hint_texts!("openWorldHint"));
        let close: [&[u8]; 3] = [b"{}}", b"}}", b"\"}}"];
        w.join_lit(j, close.get(at).copied().unwrap_or_default());
    }
    w.join_end(j);
}

/// Open a descriptor object whose first member is `name` (the brace and the key in
/// one write), then `title` and `description` when present: the three from `names`.
#[inline(always)]
pub(super) fn open_names<'n>(w: &mut JsonWriter<'_>, names: impl FnOnce() -> Names<'n>) {
    let (name, title, description) = names();
    open_with_names(w, name, title, description);
}

/// [`open_names`], the names read.
fn open_with_names(
    w: &mut JsonWriter<'_>,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
) {
    w.begin(b",{\"name\":");
    write_titles(w, name, title, description);
}

/// Write `"key":"value"` when the value is present; `key` as [`member_key!`](crate::wire::json::writer::member_key) gives
/// it.
pub(crate) fn opt_member(w: &mut JsonWriter<'_>, key: MemberKey, value: Option<&str>) {
    if let Some(v) = value {
        w.key_raw(key);
        w.str(v);
    }
}

/// The texts of an annotation hint `"key":false` and `"key":true` (second index),
/// after what comes before (first index, as [`hint`] counts).
macro_rules! hint_texts {
    ($key:literal) => {
        [
            [
                concat!("{\"", $key, "\":false").as_bytes(),
                concat!("{\"", $key, "\":true").as_bytes(),
            ],
            [
                concat!(",\"", $key, "\":false").as_bytes(),
                concat!(",\"", $key, "\":true").as_bytes(),
            ],
            [
                concat!("\",\"", $key, "\":false").as_bytes(),
                concat!("\",\"", $key, "\":true").as_bytes(),
            ],
        ]
    };
}
use hint_texts;

/// Join an annotation hint when present: its text ([`hint_texts!`]) for what comes
/// before (`at`: 0 the annotations' brace, 1 a comma, 2 a quote and a comma); after
/// it, a comma.
#[inline(always)]
fn hint(
    w: &mut JsonWriter<'_>,
    j: &mut Joined,
    at: &mut usize,
    value: Option<bool>,
    texts: &[[&'static [u8]; 2]; 3],
) {
    if let Some(v) = value {
        let text = texts.get(*at).and_then(|t| t.get(usize::from(v)));
        w.join_lit(j, text.copied().unwrap_or_default());
        *at = 1;
    }
}
