//! Navigation over validated bytes: members, items and lookups walk a [`Value`]'s text
//! again on demand, trusting that [`parse`](super::parse) checked it.

use super::form;
#[cfg(any(feature = "schema-walk", feature = "input", test))]
use super::pick;
use super::validate::{after_colon, is_ws, skip_ws};
use super::{find_quote_or_backslash, Str, Value};

// ---------------------------------------------------------------------------
// Navigation over validated bytes
// ---------------------------------------------------------------------------

/// Index of the next value or key in validated container content at `i`, past the
/// whitespace and the comma that separate it from the previous one.
#[inline]
pub(super) fn skip_comma(s: &[u8], i: usize) -> usize {
    let i = skip_ws(s, i);
    if s.get(i) == Some(&b',') {
        skip_ws(s, i + 1)
    } else {
        i
    }
}

/// Validated string content starting at `i` (just after the opening quote); returns
/// the index just after the closing quote. Trusts the bytes: an escape is a backslash
/// and one more byte that is not its end (the hex digits of `\uXXXX` are neither
/// quotes nor backslashes), and nothing else is special.
#[inline]
pub(super) fn skip_string(s: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i += find_quote_or_backslash(s.get(i..)?)?;
        match s.get(i) {
            Some(b'\\') => i += 2,
            _ => return Some(i + 1),
        }
    }
}

/// The end of the validated value at `i` (whitespace already skipped), without
/// checking it again: strings are skipped to their closing quote, containers by
/// counting brackets outside strings, numbers and literals to the next delimiter.
/// `None` when no value starts at `i` (the end of a container).
pub(super) fn skip_value(s: &[u8], i: usize) -> Option<usize> {
    match s.get(i)? {
        b'"' => skip_string(s, i + 1),
        b'{' | b'[' => skip_container(s, i),
        b'}' | b']' | b',' => None,
        _ => {
            // A number or a literal: up to the next delimiter or the end.
            let rest = s.get(i..)?;
            let n = rest
                .iter()
                .position(|&b| matches!(b, b',' | b'}' | b']') || is_ws(b))
                .unwrap_or(rest.len());
            Some(i + n)
        }
    }
}

/// The end of the validated object or array at `start`: its brackets counted outside
/// strings.
fn skip_container(s: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&b) = s.get(i) {
        i += 1;
        match b {
            b'"' => i = skip_string(s, i)?,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                // Never below zero: the first byte opened the container.
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Split the validated value at `i` off `s`: the value and the bytes after it. `None`
/// when no value starts there (the end of the container).
pub(super) fn split_value(s: &[u8], i: usize) -> Option<(Value<'_>, &[u8])> {
    let end = skip_value(s, i)?;
    let (head, rest) = s.split_at_checked(end)?;
    Some((
        Value {
            raw: head.get(i..)?,
        },
        rest,
    ))
}

/// The next member of a validated object, `s` being just after the `{` or after the
/// previous member's value: (key content, value, rest).
#[cfg_attr(emcp_fast, inline(never))]
fn next_member(s: &[u8]) -> Option<(&[u8], Value<'_>, &[u8])> {
    let i = skip_comma(s, 0);
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let key_end = skip_string(s, i + 1)?;
    let [key @ .., b'"'] = s.get(i + 1..key_end)? else {
        return None;
    };
    // Validated: the key is followed by its colon (whitespace around it allowed). Not
    // through `key_of`, which has the same first steps: inline here, the walk is
    // shorter.
    let at = form::value_after_key(s, key_end)?;
    let (value, rest) = split_value(s, at)?;
    Some((key, value, rest))
}

/// The next key of a validated object, `s` being just after the `{` or after the
/// previous member's value: (key content, the text from its value on).
fn key_of(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = skip_comma(s, 0);
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let key_end = skip_string(s, i + 1)?;
    let [key @ .., b'"'] = s.get(i + 1..key_end)? else {
        return None;
    };
    // Validated: the key is followed by its colon (whitespace around it allowed).
    let at = skip_ws(s, skip_ws(s, key_end) + 1);
    Some((key, s.get(at..)?))
}

/// Iterator over an object's members, from [`Value::members`].
#[derive(Clone, Debug)]
pub struct Members<'a> {
    pub(super) rest: &'a [u8],
}

impl<'a> Iterator for Members<'a> {
    type Item = (Str<'a>, Value<'a>);

    // On hosts inline, with the end of compact text seen before any call.
    #[cfg_attr(emcp_fast, inline)]
    fn next(&mut self) -> Option<Self::Item> {
        if form::members_end(self.rest) {
            self.rest = &[];
            return None;
        }
        match next_member(self.rest) {
            Some((key, value, rest)) => {
                self.rest = rest;
                Some((Str { raw: key }, value))
            }
            None => {
                self.rest = &[];
                None
            }
        }
    }
}

impl core::iter::FusedIterator for Members<'_> {}

impl<'a> Members<'a> {
    /// The next member's key, the walk then at its value, which [`Members::value`] or
    /// [`Members::value_as`] must pass over next (the text from the value on is
    /// [`Members::ahead`]). `None` at the end.
    pub(crate) fn key(&mut self) -> Option<Str<'a>> {
        match key_of(self.rest) {
            Some((key, value)) => {
                self.rest = value;
                Some(Str { raw: key })
            }
            None => {
                self.rest = &[];
                None
            }
        }
    }

    /// After [`Members::key`]: the text from the member's value on.
    pub(crate) fn ahead(&self) -> &'a [u8] {
        self.rest
    }

    /// After [`Members::key`]: pass over the member's value.
    pub(crate) fn value(&mut self) -> Option<Value<'a>> {
        let (value, rest) = split_value(self.rest, 0)?;
        self.rest = rest;
        Some(value)
    }

    /// After [`Members::key`]: pass over the member's value, known to be the first
    /// `len` bytes of [`Members::ahead`] (e.g. a string without escapes the caller
    /// compared them with: its closing quote is the first after its opening one).
    pub(crate) fn value_as(&mut self, len: usize) -> Option<Value<'a>> {
        let (value, rest) = self.rest.split_at_checked(len)?;
        self.rest = rest;
        Some(Value { raw: value })
    }

    /// File the remaining members into `found`: for each of `keys`, the first member of
    /// that decoded name (as [`Value::get`] would find it) goes into the same index;
    /// slots of keys not present are left as they were. (The schema walker's and the
    /// input machinery's.)
    #[cfg(any(feature = "schema-walk", feature = "input", test))]
    pub(crate) fn file_into(self, keys: &[&str], found: &mut [Option<Value<'a>>]) {
        for (k, v) in self {
            pick(keys, found, k, v);
        }
    }
}

/// Iterator over an array's elements, from [`Value::items`].
#[derive(Clone, Debug)]
pub struct Items<'a> {
    pub(super) rest: &'a [u8],
}

impl<'a> Iterator for Items<'a> {
    type Item = Value<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        match split_value(self.rest, skip_comma(self.rest, 0)) {
            Some((value, rest)) => {
                self.rest = rest;
                Some(value)
            }
            _ => {
                self.rest = &[];
                None
            }
        }
    }
}

impl core::iter::FusedIterator for Items<'_> {}

// ---------------------------------------------------------------------------
// Looking a member up by its key as written
// ---------------------------------------------------------------------------

impl<'a> Value<'a> {
    /// [`Value::get`] in an object one of whose member values, `known`, was found
    /// before (a request's `params._meta`, filed while the line was validated). On
    /// hosts that value is passed over by its length, not walked bracket by bracket;
    /// a small target walks it (`get`): its flash is scarcer than its cycles.
    #[inline(always)]
    pub(crate) fn get_past(&self, key: &str, known: Option<Value<'a>>) -> Option<Value<'a>> {
        form::get_past(self, key, known)
    }
}

impl<'a> Value<'a> {
    /// The first member of this object whose key is `key` once both are decoded (`"a"`
    /// and `"\u0061"` name one member, as [`Value::get`] has it): its index, and the
    /// members of its value (none unless that is an object). The walk stops at that
    /// key: the value is read from there, not skipped over first as [`Value::members`]
    /// would. `None` if not an object or no such key.
    pub(crate) fn member_named(&self, key: Str<'_>) -> Option<(usize, Members<'a>)> {
        let mut members = self.members();
        let mut index = 0;
        loop {
            // The next key, as a string value; the member is passed over when it is not
            // the one.
            let s = members.rest;
            let (name, after) = split_value(s, skip_comma(s, 0))?;
            if key.same_name(name.as_str()?) {
                // The text from the value on: `members` reads only from its opening
                // brace, and stops at the matching closing one.
                let value = after.get(after_colon(after, 0)?..)?;
                return Some((index, Value { raw: value }.members()));
            }
            members.next()?;
            index += 1;
        }
    }
}
