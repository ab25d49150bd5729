//! The registry's plain serialisers, for small targets: one piece at a time through
//! the writer's ordinary calls (the least code). Their twins in [`super::fast`] write
//! the same bytes (`mod.rs`, `forms_agree`).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::{opt_member, write_names, Names, Tool, ToolAnnotations};
use crate::wire::json::writer::{member_key, MemberKey};
use crate::wire::json::JsonWriter;

/// [`Tool::write`] one piece at a time (small code).
pub(super) fn write_tool(tool: &Tool<'_>, w: &mut JsonWriter<'_>) {
    write_tool_as(tool, w, None);
}

/// [`write_tool`], with `execution.taskSupport` when `execution` is given (feature
/// `tasks`, 2025-11-25 `tools/list`).
#[inline(always)]
pub(super) fn write_tool_as(
    tool: &Tool<'_>,
    w: &mut JsonWriter<'_>,
    execution: Option<super::TaskSupport>,
) {
    w.begin_object();
    write_names(w, tool.name, tool.title, tool.description);
    w.key_raw(member_key!("inputSchema"));
    w.raw_value(tool.input_schema.as_bytes());
    if let Some(s) = tool.output_schema {
        w.key_raw(member_key!("outputSchema"));
        w.raw_value(s.as_bytes());
    }
    if !tool.annotations.is_empty() {
        w.key_raw(member_key!("annotations"));
        write_annotations(&tool.annotations, w);
    }
    if let Some(e) = execution {
        w.key_raw(member_key!("execution"));
        w.begin_object();
        w.key_raw(member_key!("taskSupport"));
        w.str_lit(e.as_str());
        w.end_object();
    }
    w.end_object();
}

/// Open a descriptor object, then its `name`, `title` and `description`: the three
/// from `names`, read after the brace is written (nothing to keep across that call).
#[inline(always)]
pub(super) fn open_names<'n>(w: &mut JsonWriter<'_>, names: impl FnOnce() -> Names<'n>) {
    w.begin_object();
    let (name, title, description) = names();
    write_names(w, name, title, description);
}

/// Write a tool's `annotations` object.
fn write_annotations(a: &ToolAnnotations<'_>, w: &mut JsonWriter<'_>) {
    w.begin_object();
    opt_member(w, member_key!("title"), a.title);
    opt_bool(w, member_key!("readOnlyHint"), a.read_only);
    opt_bool(w, member_key!("destructiveHint"), a.destructive);
    opt_bool(w, member_key!("idempotentHint"), a.idempotent);
    opt_bool(w, member_key!("openWorldHint"), a.open_world);
    w.end_object();
}

/// Write `"key":true|false` when the value is present.
fn opt_bool(w: &mut JsonWriter<'_>, key: MemberKey, value: Option<bool>) {
    if let Some(v) = value {
        w.key_raw(key);
        w.bool(v);
    }
}
