//! URI templates: RFC 6570 level-1 (`{var}`) matching for resource templates.
//!
//! The template grammar is parsed with `nom`; matching is allocation-free and binds at
//! most [`MAX_VARS`] variables. A variable matches one or more characters of the RFC 3986
//! *unreserved* set or percent-escapes (`A-Z a-z 0-9 - . _ ~ %XX`), never `/`, never
//! `.` or `..` alone, and no escape of `.`, `/`, `\` or NUL — so a template variable
//! cannot smuggle a path step.
//!
//! ```
//! use emcp::template::Match;
//! let m = Match::new("sensor://{name}/history", "sensor://temperature/history").unwrap();
//! assert_eq!(m.var("name"), Some("temperature"));
//! assert!(Match::new("sensor://{name}/history", "sensor://../history").is_none());
//! ```

use nom::branch::alt;
use nom::bytes::complete::{is_not, take_while1};
use nom::character::complete::char;
use nom::sequence::delimited;
use nom::{IResult, Parser};

/// Most variables one template may bind.
pub const MAX_VARS: usize = 4;

/// One piece of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'t> {
    /// Text that must appear verbatim.
    Literal(&'t str),
    /// `{name}`: a variable.
    Var(&'t str),
}

fn segment(input: &str) -> IResult<&str, Segment<'_>> {
    alt((
        delimited(
            char('{'),
            take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_'),
            char('}'),
        )
        .map(Segment::Var),
        is_not("{}").map(Segment::Literal),
    ))
    .parse(input)
}

/// The segments of a template, in order; `Err(())` at a syntax error.
pub fn segments(template: &str) -> impl Iterator<Item = Result<Segment<'_>, ()>> {
    let mut rest = template;
    let mut failed = false;
    core::iter::from_fn(move || {
        if rest.is_empty() || failed {
            return None;
        }
        match segment(rest) {
            Ok((r, seg)) => {
                rest = r;
                Some(Ok(seg))
            }
            Err(_) => {
                failed = true;
                Some(Err(()))
            }
        }
    })
}

/// A template emcp can match: valid syntax, at most [`MAX_VARS`] variables, no two
/// variables side by side, at least one literal.
pub fn is_valid(template: &str) -> bool {
    let mut vars = 0;
    let mut literals = 0;
    let mut prev_var = false;
    for seg in segments(template) {
        match seg {
            Err(()) => return false,
            Ok(Segment::Var(_)) => {
                if prev_var {
                    return false;
                }
                vars += 1;
                prev_var = true;
            }
            Ok(Segment::Literal(_)) => {
                literals += 1;
                prev_var = false;
            }
        }
    }
    vars <= MAX_VARS && literals > 0
}

fn valid_value(v: &str) -> bool {
    let bytes = v.as_bytes();
    if bytes.is_empty() || v == "." || v == ".." {
        return false;
    }
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(i + 1) && hex(i + 2)) {
                return false;
            }
            // No encoded path tricks: `%2e` (.), `%2f` (/), `%5c` (\\), `%00`.
            let code = bytes.get(i + 1..i + 3).unwrap_or(b"");
            if code.eq_ignore_ascii_case(b"2e")
                || code.eq_ignore_ascii_case(b"2f")
                || code.eq_ignore_ascii_case(b"5c")
                || code == b"00"
            {
                return false;
            }
            i += 3;
            continue;
        }
        if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')) {
            return false;
        }
        i += 1;
    }
    true
}

/// The variables bound by matching a URI against a template.
#[derive(Clone, Copy, Debug, Default)]
pub struct Match<'t, 'u> {
    vars: [(&'t str, &'u str); MAX_VARS],
    len: usize,
}

impl<'t, 'u> Match<'t, 'u> {
    /// Match `uri` against `template`; `None` when it does not match (or a variable's
    /// value is not allowed).
    pub fn new(template: &'t str, uri: &'u str) -> Option<Self> {
        let mut m = Match {
            vars: [("", ""); MAX_VARS],
            len: 0,
        };
        let mut rest = uri;
        let mut segs = segments(template).peekable();
        while let Some(seg) = segs.next() {
            match seg.ok()? {
                Segment::Literal(lit) => rest = rest.strip_prefix(lit)?,
                Segment::Var(name) => {
                    let end = match segs.peek() {
                        Some(Ok(Segment::Literal(next))) => rest.find(next)?,
                        Some(_) => return None,
                        None => rest.len(),
                    };
                    let (value, r) = rest.split_at_checked(end)?;
                    if !valid_value(value) {
                        return None;
                    }
                    *m.vars.get_mut(m.len)? = (name, value);
                    m.len += 1;
                    rest = r;
                }
            }
        }
        rest.is_empty().then_some(m)
    }

    /// The value bound to `name` (still percent-encoded).
    pub fn var(&self, name: &str) -> Option<&'u str> {
        self.vars
            .iter()
            .take(self.len)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching() {
        let t = "sensor://{name}/history";
        assert!(is_valid(t));
        assert_eq!(
            Match::new(t, "sensor://humidity/history").and_then(|m| m.var("name")),
            Some("humidity")
        );
        assert!(Match::new(t, "sensor:///history").is_none());
        assert!(Match::new(t, "sensor://a/b/history").is_none());
        assert!(Match::new(t, "sensor://a/history/x").is_none());
        assert!(Match::new(t, "sensor://%2e%2E/history").is_none());
        assert!(Match::new(t, "sensor://a%2Fb/history").is_none());
        assert_eq!(
            Match::new(t, "sensor://a%20b/history").and_then(|m| m.var("name")),
            Some("a%20b")
        );
        assert!(Match::new(t, "sensor://%zz/history").is_none());
        assert!(Match::new(t, "sensor://../history").is_none());
        assert!(Match::new(t, "other://a/history").is_none());
        let t2 = "test://template/{id}/data";
        assert_eq!(
            Match::new(t2, "test://template/42/data").and_then(|m| m.var("id")),
            Some("42")
        );
        let t3 = "x://{a}.{b}";
        assert!(is_valid(t3));
        let m = Match::new(t3, "x://one.two").unwrap();
        assert_eq!((m.var("a"), m.var("b")), (Some("one"), Some("two")));
    }

    #[test]
    fn validity() {
        assert!(!is_valid("x://{a}{b}"));
        assert!(!is_valid("x://{a"));
        assert!(!is_valid("x://{}"));
        assert!(!is_valid("{a}"));
        assert!(!is_valid("x://{a}/{b}/{c}/{d}/{e}"));
        assert!(is_valid("x://{a}/{b}/{c}/{d}"));
    }
}
