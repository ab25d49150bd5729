//! The writer's plain forms, for small targets (whose flash is scarcer than their
//! cycles): every piece its own sink write, keys as bare names (the texts in flash
//! stay shared). Each is the twin of the fast form of the same name in
//! [`super::fast`] and writes the same bytes (`tests.rs`, `forms_agree`).
#![cfg_attr(emcp_fast, allow(dead_code))]

use super::JsonWriter;

/// A key the crate spells as a literal, for [`JsonWriter::key_raw`]: the name alone.
#[cfg_attr(emcp_fast, allow(unused_macros))] // used where this form is chosen
macro_rules! member_key {
    ($key:literal) => {
        $key
    };
}
#[cfg_attr(emcp_fast, allow(unused_imports))]
pub(crate) use member_key;

/// What [`member_key!`] gives.
pub(crate) type MemberKey = &'static str;

/// A whole string (see [`JsonWriter::put_string`]), piece by piece.
#[inline(always)]
pub(super) fn put_string(w: &mut JsonWriter<'_>, content: &[u8], key: bool, verbatim: bool) {
    w.put_parts(content, key, verbatim);
}

/// An object key, escaped (see [`JsonWriter::key`]).
#[inline(always)]
pub(super) fn key(w: &mut JsonWriter<'_>, key: &[u8]) {
    w.put_string(key, true, false);
}

/// A key as [`member_key!`] gives it: the name, as [`JsonWriter::key_lit`] writes it.
#[inline(always)]
pub(super) fn key_raw(w: &mut JsonWriter<'_>, key: MemberKey) {
    w.key_lit(key);
}

/// The comma before a raw value, when one is due.
#[inline(always)]
pub(super) fn value_comma(w: &mut JsonWriter<'_>) {
    w.put_lead(b",");
}
