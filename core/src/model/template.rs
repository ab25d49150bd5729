//! URI templates: RFC 6570 level-1 (`{var}`) matching for resource templates.
//!
//! The template grammar is two productions — `{name}` with `name` one or more of
//! `A-Z a-z 0-9 _`, and a literal run of anything but `{` and `}` — read by hand;
//! matching is allocation-free and binds at most [`MAX_VARS`] variables. A variable
//! matches one or more characters of the RFC 3986 *unreserved* set or
//! percent-escapes (`A-Z a-z 0-9 - . _ ~ %XX`), never `/`, never `.` or `..` alone,
//! and no escape of `.`, `/`, `\` or NUL — so a template variable cannot smuggle a path
//! step.
//!
//! ```
//! use emcp::model::template::Match;
//! let m = Match::new("sensor://{name}/history", "sensor://temperature/history").unwrap();
//! assert_eq!(m.var("name"), Some("temperature"));
//! assert!(Match::new("sensor://{name}/history", "sensor://../history").is_none());
//! ```

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

/// The segment at the start of non-empty `input` and the rest; `None` at a syntax
/// error. Byte searches: `{` and `}` are ASCII, so every split is at a character
/// boundary (and checked anyway).
fn segment(input: &str) -> Option<(Segment<'_>, &str)> {
    let bytes = input.as_bytes();
    if bytes.first() == Some(&b'{') {
        let end = bytes.iter().position(|&b| b == b'}')?;
        let name = input.get(1..end)?;
        let valid =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        return valid.then_some((Segment::Var(name), input.get(end + 1..)?));
    }
    let end = bytes
        .iter()
        .position(|&b| b == b'{' || b == b'}')
        .unwrap_or(bytes.len());
    let (literal, rest) = input.split_at_checked(end)?;
    (!literal.is_empty()).then_some((Segment::Literal(literal), rest))
}

/// The segments of a template, in order; `Err(())` at a syntax error (and nothing
/// after it).
pub fn segments(template: &str) -> Segments<'_> {
    Segments { rest: template }
}

/// Iterator over a template's segments, from [`segments`].
#[derive(Clone, Debug)]
pub struct Segments<'t> {
    rest: &'t str,
}

impl<'t> Iterator for Segments<'t> {
    type Item = Result<Segment<'t>, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        match segment(self.rest) {
            Some((seg, rest)) => {
                self.rest = rest;
                Some(Ok(seg))
            }
            None => {
                self.rest = "";
                Some(Err(()))
            }
        }
    }
}

impl core::iter::FusedIterator for Segments<'_> {}

/// Index of the first occurrence of `needle` (not empty) in `haystack`. A plain byte
/// search: `str::find` with a string pattern brings the Two-Way searcher and its
/// panic paths into the firmware.
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let (&first, _) = n.split_first()?;
    let mut from = 0;
    while let Some(tail) = h.get(from..) {
        let i = from + tail.iter().position(|&b| b == first)?;
        if h.get(i..).is_some_and(|t| t.starts_with(n)) {
            return Some(i);
        }
        from = i + 1;
    }
    None
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
    let mut rest = v.as_bytes();
    if matches!(rest, [] | [b'.'] | [b'.', b'.']) {
        return false;
    }
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b == b'%' {
            let [hi, lo, after @ ..] = rest else {
                return false;
            };
            if !(hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit()) {
                return false;
            }
            // No encoded path tricks: `%2e` (.), `%2f` (/), `%5c` (\\), `%00`, in either
            // case (`| 0x20` lowers a hex letter and keeps a digit).
            if matches!(
                (hi, lo | 0x20),
                (b'2', b'e' | b'f') | (b'5', b'c') | (b'0', b'0')
            ) {
                return false;
            }
            rest = after;
        } else if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')) {
            return false;
        }
    }
    true
}

/// Match `uri` against `template`, handing each variable binding, in order, to `bind`
/// (which returns false to stop early). True when the whole URI matches; false at a
/// mismatch, a value that is not allowed, more than [`MAX_VARS`] variables, or when
/// `bind` stopped. One walk serves [`Match::new`], [`matches()`] and [`var`].
fn walk<'t, 'u>(
    template: &'t str,
    uri: &'u str,
    bind: &mut dyn FnMut(&'t str, &'u str) -> bool,
) -> bool {
    let mut rest = uri;
    let mut vars = 0;
    let mut segs = segments(template);
    while let Some(seg) = segs.next() {
        match seg {
            Err(()) => return false,
            Ok(Segment::Literal(lit)) => match rest.strip_prefix(lit) {
                Some(r) => rest = r,
                None => return false,
            },
            Ok(Segment::Var(name)) => {
                // A look at the next segment (a copy of the iterator is a peek).
                let end = match segs.clone().next() {
                    Some(Ok(Segment::Literal(next))) => find(rest, next),
                    Some(_) => None,
                    None => Some(rest.len()),
                };
                let Some((value, r)) = end.and_then(|e| rest.split_at_checked(e)) else {
                    return false;
                };
                vars += 1;
                if !valid_value(value) || vars > MAX_VARS || !bind(name, value) {
                    return false;
                }
                rest = r;
            }
        }
    }
    rest.is_empty()
}

/// Whether `uri` matches `template` ([`Match::new`] would bind it).
pub(crate) fn matches(template: &str, uri: &str) -> bool {
    walk(template, uri, &mut |_, _| true)
}

/// The value `uri` binds to variable `name` of `template` (still percent-encoded), as
/// [`Match::var`] of [`Match::new`] would give it, without keeping the other bindings.
pub(crate) fn var<'u>(template: &str, uri: &'u str, name: &str) -> Option<&'u str> {
    let mut found = None;
    let matched = walk(template, uri, &mut |n, v| {
        if found.is_none() && n == name {
            found = Some(v);
        }
        true
    });
    found.filter(|_| matched)
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
        let matched = walk(template, uri, &mut |name, value| {
            let Some(slot) = m.vars.get_mut(m.len) else {
                return false;
            };
            *slot = (name, value);
            m.len += 1;
            true
        });
        matched.then_some(m)
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
    extern crate std;
    use super::*;
    use std::vec::Vec;

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
        for bad in ["%2F", "%5c", "%5C", "%00", "%2", "a%", ".", ".."] {
            let uri = std::format!("sensor://{bad}/history");
            assert!(Match::new(t, &uri).is_none(), "{bad}");
        }
        for ok in ["%0a", "%20", "%2d", "%5b", "...", ".a", "A-z_0.9~"] {
            let uri = std::format!("sensor://{ok}/history");
            assert_eq!(Match::new(t, &uri).and_then(|m| m.var("name")), Some(ok));
        }
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
    fn grammar() {
        let all = |t| segments(t).collect::<Vec<_>>();
        assert_eq!(
            all("a://{x_1}/b{Y}"),
            [
                Ok(Segment::Literal("a://")),
                Ok(Segment::Var("x_1")),
                Ok(Segment::Literal("/b")),
                Ok(Segment::Var("Y")),
            ]
        );
        assert_eq!(all(""), []);
        assert_eq!(
            all("é{v}ü"),
            [
                Ok(Segment::Literal("é")),
                Ok(Segment::Var("v")),
                Ok(Segment::Literal("ü")),
            ]
        );
        for bad in [
            "{", "}", "{}", "{a", "{a/b}", "{é}", "x}", "{a}}", "{{a}}", "{a-b}",
        ] {
            assert_eq!(all(bad).last(), Some(&Err(())), "{bad}");
        }
        // Nothing after the first error.
        assert_eq!(all("x}{a}"), [Ok(Segment::Literal("x")), Err(())]);
    }

    #[test]
    fn byte_search() {
        assert_eq!(find("abcabd", "abd"), Some(3));
        assert_eq!(find("aab", "ab"), Some(1));
        assert_eq!(find("ab", "abc"), None);
        assert_eq!(find("ab", ""), None);
        assert_eq!(find("", "a"), None);
        assert_eq!(find("héllo/x", "/x"), Some(6));
        // The first occurrence decides, as `str::find`.
        let t = "x://{a}.{b}";
        let m = Match::new(t, "x://a.b.c").unwrap();
        assert_eq!((m.var("a"), m.var("b")), (Some("a"), Some("b.c")));
        // A multi-byte value before the literal is refused, not split inside a char.
        assert!(Match::new("x://{a}/y", "x://é/y").is_none());
    }

    #[test]
    fn one_walk_for_every_question() {
        let templates = [
            "sensor://{name}/history",
            "x://{a}.{b}",
            "x://{a}{b}",
            "x://{a}/{b}/{c}/{d}/{e}",
            "x://{a}/{a}",
            "x://{a",
            "x://",
        ];
        let uris = [
            "sensor://t/history",
            "x://one.two",
            "x://a.b.c",
            "x://1/2/3/4/5",
            "x://1/2",
            "x://",
            "x://%2e",
        ];
        for t in templates {
            for u in uris {
                let m = Match::new(t, u);
                assert_eq!(matches(t, u), m.is_some(), "{t} {u}");
                for name in ["name", "a", "b", "e", "z"] {
                    assert_eq!(var(t, u, name), m.and_then(|m| m.var(name)), "{t} {u}");
                }
            }
        }
        assert_eq!(var("x://{a}/{a}", "x://1/2", "a"), Some("1"));
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
