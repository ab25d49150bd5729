//! Argument validation against a tool's input schema, before the handler runs.
//!
//! emcp checks the JSON Schema subset devices use, on the top-level properties of the
//! arguments object: `type` (a name or an array of names), `required`, `enum`,
//! `minimum`/`maximum`, `exclusiveMinimum`/`exclusiveMaximum`, `minLength`/`maxLength`
//! (in Unicode characters), and `additionalProperties: false`; an argument given twice
//! is refused too (which value counts would be ambiguous). Other keywords are
//! ignored (the device's handler remains responsible for them). A violation becomes a
//! tool result with `isError: true` whose text names the argument and the rule.
//! Numbers are compared by their exact decimal values, as JSON Schema compares them
//! (`1.0` is in `enum: [1]`; `100.00000000000000001` is above `maximum: 100`), never
//! through `f64`.
//!
//! [`validate`] walks the schema's text on every call; a [`Plan`] (the [`plan`]
//! module, [`emcp::tool!`](crate::tool)) is the same schema compiled at compile time,
//! checked with the same rules and answers without the walk.
//!
//! ```
//! use emcp::wire::json::parse;
//! use emcp::model::schema::validate;
//! let schema = parse(br#"{"type":"object","properties":{"b":{"type":"integer","maximum":100}},"required":["b"]}"#).unwrap();
//! assert!(validate(schema, Some(parse(br#"{"b":50}"#).unwrap())).is_ok());
//! assert!(validate(schema, Some(parse(br#"{"b":150}"#).unwrap())).is_err());
//! assert!(validate(schema, None).is_err());
//! ```

use core::cmp::Ordering;

use crate::wire::json::{JsonWriter, Kind, Str, Value};

pub mod plan;

#[cfg_attr(not(emcp_fast), allow(unused_imports))] // read by handlers on hosts
pub(crate) use plan::Filed;
pub use plan::{Plan, PlanRef, MAX_PLAN_PROPERTIES};

/// Whether this build has the schema walker ([`validate`], feature `schema-walk`): a
/// tool whose schema is not compiled into a plan is then checked by it; otherwise
/// refused ([`emcp::tool!`](crate::tool) does not compile it).
pub const WALKS: bool = crate::features::SCHEMA_WALK;

/// The rule an argument broke.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Rule<'s> {
    /// A required argument is missing.
    Required,
    /// Wrong JSON type; the schema's `type` value.
    Type(Value<'s>),
    /// Not one of the `enum` values.
    Enum(Value<'s>),
    /// Below `minimum`.
    Minimum(Value<'s>),
    /// Above `maximum`.
    Maximum(Value<'s>),
    /// Not above `exclusiveMinimum`.
    ExclusiveMinimum(Value<'s>),
    /// Not below `exclusiveMaximum`.
    ExclusiveMaximum(Value<'s>),
    /// Shorter than `minLength`.
    MinLength(Value<'s>),
    /// Longer than `maxLength`.
    MaxLength(Value<'s>),
    /// Not a declared property, and `additionalProperties` is false.
    Unknown,
    /// Given twice (which value counts would be ambiguous).
    Duplicate,
    /// Not checked: the schema did not fit a compiled plan, and the walker that would
    /// check its text instead is not compiled in (feature `schema-walk`). A server
    /// never meets it: [`Server::new`](crate::Server::new) refuses such a tool.
    Uncompiled,
}

/// Which argument broke which rule.
#[derive(Clone, Copy, Debug)]
pub struct Violation<'s, 'a> {
    /// The argument's name (from the schema for `Required`, from the arguments otherwise).
    pub argument: Str<'a>,
    /// The rule.
    pub rule: Rule<'s>,
}

impl Violation<'_, '_> {
    /// No argument checked: [`Rule::Uncompiled`].
    #[cfg(not(feature = "schema-walk"))]
    pub(crate) const UNCOMPILED: Violation<'static, 'static> = Violation {
        argument: Str::EMPTY,
        rule: Rule::Uncompiled,
    };

    /// Write the message as a JSON string value, e.g.
    /// `Invalid argument "brightness": must be <= 100`.
    pub fn write_message(&self, w: &mut JsonWriter<'_>) {
        w.string_begin();
        // Only a build without the walker makes this rule.
        if !crate::features::SCHEMA_WALK && matches!(self.rule, Rule::Uncompiled) {
            w.string_part("Arguments not checked: the input schema is not compiled");
            w.string_end();
            return;
        }
        let head = match self.rule {
            Rule::Required => "Missing required ",
            Rule::Unknown => "Unknown ",
            Rule::Duplicate => "Duplicate ",
            _ => "Invalid ",
        };
        w.string_part(head);
        // Shared by every head (stored once).
        w.string_part("argument \"");
        w.string_str(self.argument);
        let (text, value) = match self.rule {
            Rule::Required => ("\"", None),
            Rule::Unknown => ("\": additional properties are not allowed", None),
            Rule::Duplicate | Rule::Uncompiled => ("\"", None),
            Rule::Type(v) => ("\": expected type ", Some(v)),
            Rule::Enum(v) => ("\": must be one of ", Some(v)),
            Rule::Minimum(v) => ("\": must be >= ", Some(v)),
            Rule::Maximum(v) => ("\": must be <= ", Some(v)),
            Rule::ExclusiveMinimum(v) => ("\": must be > ", Some(v)),
            Rule::ExclusiveMaximum(v) => ("\": must be < ", Some(v)),
            Rule::MinLength(v) => ("\": must have at least this many characters: ", Some(v)),
            Rule::MaxLength(v) => ("\": must have at most this many characters: ", Some(v)),
        };
        w.string_part(text);
        if let Some(v) = value {
            match v.as_str() {
                Some(s) => w.string_str(s),
                // JSON text, so UTF-8 (`json::parse` checks its whole input, and a
                // value is cut at token boundaries): written as characters, unchecked.
                None => w.string_part_utf8(v.raw()),
            }
        }
        w.string_end();
    }
}

/// The message [`Violation::write_message`] writes, as text (the argument's name and
/// the schema's value decoded): `Invalid argument "brightness": must be <= 100`.
impl core::fmt::Display for Violation<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write as _;
        /// A JSON string's decoded text.
        fn decoded(s: Str<'_>, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            s.pieces().try_for_each(|piece| match piece {
                crate::wire::json::Piece::Text(text) => f.write_str(text),
                crate::wire::json::Piece::Char(c) => f.write_char(c),
            })
        }
        if matches!(self.rule, Rule::Uncompiled) {
            return f.write_str("Arguments not checked: the input schema is not compiled");
        }
        f.write_str(match self.rule {
            Rule::Required => "Missing required argument \"",
            Rule::Unknown => "Unknown argument \"",
            Rule::Duplicate => "Duplicate argument \"",
            _ => "Invalid argument \"",
        })?;
        decoded(self.argument, f)?;
        let (text, value) = match self.rule {
            Rule::Unknown => ("\": additional properties are not allowed", None),
            Rule::Type(v) => ("\": expected type ", Some(v)),
            Rule::Enum(v) => ("\": must be one of ", Some(v)),
            Rule::Minimum(v) => ("\": must be >= ", Some(v)),
            Rule::Maximum(v) => ("\": must be <= ", Some(v)),
            Rule::ExclusiveMinimum(v) => ("\": must be > ", Some(v)),
            Rule::ExclusiveMaximum(v) => ("\": must be < ", Some(v)),
            Rule::MinLength(v) => ("\": must have at least this many characters: ", Some(v)),
            Rule::MaxLength(v) => ("\": must have at most this many characters: ", Some(v)),
            Rule::Required | Rule::Duplicate | Rule::Uncompiled => ("\"", None),
        };
        f.write_str(text)?;
        match value {
            Some(v) => match v.as_str() {
                Some(s) => decoded(s, f),
                None => f.write_str(core::str::from_utf8(v.raw()).unwrap_or("?")),
            },
            None => Ok(()),
        }
    }
}

impl core::error::Error for Violation<'_, '_> {}

/// The JSON Schema type names, and (in [`TYPE_KINDS`], same order) the kind of value
/// each accepts; `integer` ([`INTEGER`]) also needs the value integral. Two arrays
/// rather than one of tuples: no padding per entry in a small image.
const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// The kind each of [`TYPE_NAMES`] accepts.
const TYPE_KINDS: [Kind; 7] = [
    Kind::String,
    Kind::Number,
    Kind::Number,
    Kind::Bool,
    Kind::Object,
    Kind::Array,
    Kind::Null,
];

/// Index of `integer` in [`TYPE_NAMES`].
const INTEGER: usize = 2;

/// Whether `v` is of the type `name` names; false when `name` is not a string.
fn type_matches(name: Value<'_>, v: Value<'_>) -> bool {
    let Some(name) = name.as_str() else {
        return false;
    };
    match TYPE_NAMES.iter().position(|n| n.as_bytes() == name.raw()) {
        Some(i) => is_type(i, v),
        None => true, // unknown type names are not ours to judge
    }
}

/// Whether `v` is of the type [`TYPE_NAMES`]`[i]` names.
#[inline]
fn is_type(i: usize, v: Value<'_>) -> bool {
    TYPE_KINDS.get(i) == Some(&v.kind()) && (i != INTEGER || v.is_integral())
}

fn json_eq(a: Value<'_>, b: Value<'_>) -> bool {
    // The same text is the same value (the common case of an allowed string).
    if a.raw() == b.raw() {
        return true;
    }
    // A string against an allowed string without escapes: by decoded content.
    if let (Some(x), Some(plain)) = (a.as_str(), b.as_str().filter(|y| !y.has_escapes())) {
        return x.eq_bytes(plain.raw());
    }
    // Two numbers compare by value (`cmp_number` is `None` unless both are numbers);
    // anything else, escaped strings included, by its text.
    a.cmp_number(&b) == Some(Ordering::Equal)
}

/// The keywords [`check_property`] reads: `type`, `enum`, then the bounds (found in
/// one pass over the property's schema).
const PROPERTY_KEYS: [&str; 8] = [
    "type",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
];

/// Check `v` against a property schema's keywords.
#[cfg(feature = "schema-walk")]
fn check_property<'s>(keywords: &Keywords<'s>, v: Value<'_>) -> Result<(), Rule<'s>> {
    let [ty, allowed, bounds @ ..] = keywords;
    if let Some(t) = *ty {
        // A name, or an array of names (an array is no name, a name has no items).
        let ok = type_matches(t, v) || t.items().any(|n| type_matches(n, v));
        if !ok {
            return Err(Rule::Type(t));
        }
    }
    if let Some(e) = *allowed {
        if !e.items().any(|allowed| json_eq(v, allowed)) {
            return Err(Rule::Enum(e));
        }
    }
    check_bounds(bounds, v)
}

/// Check `v` against a property schema's bounds (its keywords from `minimum` on).
#[inline]
fn check_bounds<'s>(bounds: &[Option<Value<'s>>; 6], v: Value<'_>) -> Result<(), Rule<'s>> {
    // Numbers compare by their exact decimal values: `100.00000000000000001` is above a
    // maximum of 100 although both are the same `f64`.
    for (i, (bound, breaks)) in bounds.iter().zip(BOUND_BREAKS.iter()).enumerate() {
        let Some(b) = *bound else { continue };
        let order = if i >= FIRST_LENGTH_BOUND {
            let length = v.as_str().map(|s| s.char_count() as u64);
            length.zip(count(b)).map(|(n, limit)| n.cmp(&limit))
        } else {
            v.cmp_number(&b)
        };
        if order.is_some_and(|o| breaks >> (o as i8 + 1) & 1 != 0) {
            return Err(bound_rule(i, b));
        }
    }
    Ok(())
}

/// What [`Value::as_u64`] reads in a length bound: an integer literal (no fraction, no
/// exponent) that fits a `u64`, `-0` being 0; `None` for anything else. Read here from
/// the digits, in less code than the general number reader needs.
fn count(b: Value<'_>) -> Option<u64> {
    let digits = match b.raw() {
        b"-0" => b"0",
        raw => raw,
    };
    digits.iter().try_fold(0u64, |n, &d| {
        let d = d.wrapping_sub(b'0');
        (d < 10).then_some(())?;
        n.checked_mul(10)?.checked_add(u64::from(d))
    })
}

/// How the argument compares with each bound of [`PROPERTY_KEYS`] (from `minimum` on,
/// in the order they are checked) when it breaks it, a bit per [`Ordering`] (`Less` 1,
/// `Equal` 2, `Greater` 4); the ones from [`FIRST_LENGTH_BOUND`] on bound a string's
/// length in characters, the others a number's value.
const BOUND_BREAKS: [u8; 6] = [1, 4, 1 | 2, 4 | 2, 1, 4];

/// Index of the first length bound among the bounds.
const FIRST_LENGTH_BOUND: usize = 4;

/// The rule bound `i` (of [`BOUND_BREAKS`]) stands for, broken by the bound `b`.
fn bound_rule(i: usize, b: Value<'_>) -> Rule<'_> {
    match i {
        0 => Rule::Minimum(b),
        1 => Rule::Maximum(b),
        2 => Rule::ExclusiveMinimum(b),
        3 => Rule::ExclusiveMaximum(b),
        4 => Rule::MinLength(b),
        _ => Rule::MaxLength(b),
    }
}

/// The arguments checked by walking the schema's text, with the walker (feature
/// `schema-walk`); without it nothing is walked: [`Violation::UNCOMPILED`].
#[cfg(feature = "schema-walk")]
pub(crate) fn walk<'s>(schema: &'s str, args: Option<Value<'s>>) -> Result<(), Violation<'s, 's>> {
    validate(Value::trusted(schema.as_bytes()), args)
}

/// Without the walker (feature `schema-walk` off) a schema is never walked.
#[cfg(not(feature = "schema-walk"))]
#[inline(always)]
pub(crate) fn walk<'s>(
    _schema: &'s str,
    _args: Option<Value<'s>>,
) -> Result<(), Violation<'s, 's>> {
    Err(Violation::UNCOMPILED)
}

/// Check `args` (an object, or `None` when the request had no arguments) against
/// `schema`. The first violation found is returned: missing required arguments first,
/// then the arguments in the order given. Feature `schema-walk` (on by default).
#[cfg(feature = "schema-walk")]
pub fn validate<'s>(schema: Value<'s>, args: Option<Value<'s>>) -> Result<(), Violation<'s, 's>> {
    // The schema's top level is walked once (keywords by their decoded names). An
    // argument's property is found by a walk over `properties` that stops at its key
    // (names as written), and its schema is then read once, not skipped and read again.
    let mut found = [None; 3];
    schema.members().file_into(&SCHEMA_KEYS, &mut found);
    let [props, required, additional] = found;
    let closed = additional.is_some_and(|v| v.raw() == b"false");
    if let Some(name) = first_missing(required, args) {
        return Err(Violation {
            argument: name,
            rule: Rule::Required,
        });
    }
    let Some(args) = args else { return Ok(()) };
    // Any argument given twice first, then the first argument that breaks a rule: the
    // walk goes on past a broken argument to look for a later one given twice.
    let mut broken = None;
    for (i, (key, value)) in args.members().enumerate() {
        if given_before(args, i, key) {
            return Err(Violation {
                argument: key,
                rule: Rule::Duplicate,
            });
        }
        if broken.is_some() {
            continue;
        }
        let mut keywords = [None; PROPERTY_KEYS.len()];
        let rule = match props.and_then(|p| p.member_named(key)) {
            Some((_, prop)) => {
                prop.file_into(&PROPERTY_KEYS, &mut keywords);
                check_property(&keywords, value).err()
            }
            None => closed.then_some(Rule::Unknown),
        };
        broken = rule.map(|rule| Violation {
            argument: key,
            rule,
        });
    }
    broken.map_or(Ok(()), Err)
}

/// The keywords [`validate`] reads at a schema's top level.
const SCHEMA_KEYS: [&str; 3] = ["properties", "required", "additionalProperties"];

/// A property's keywords, in [`PROPERTY_KEYS`] order.
#[cfg(feature = "schema-walk")]
type Keywords<'s> = [Option<Value<'s>>; PROPERTY_KEYS.len()];

/// The first name of the `required` array (its strings, as written) that `args` lacks.
/// Forced inline on hosts only: on small targets the compiler's choice is smaller.
#[cfg_attr(emcp_fast, inline(always))]
fn first_missing<'s>(required: Option<Value<'s>>, args: Option<Value<'_>>) -> Option<Str<'s>> {
    required?
        .items()
        .filter_map(|n| n.as_str())
        .find(|name| args.and_then(|a| a.member_named(*name)).is_none())
}

/// Whether member `i` of `args`, named `key`, was given before: its name's first
/// occurrence (as written) is not this one.
#[inline(always)]
fn given_before(args: Value<'_>, i: usize, key: Str<'_>) -> bool {
    i > 0 && args.member_named(key).is_some_and(|(first, _)| first != i)
}

// Every test compares with the walker.
#[cfg(test)]
#[cfg(feature = "schema-walk")]
mod tests {
    extern crate std;
    use super::*;
    use crate::wire::json::parse;
    use std::string::String;

    const LED: &str = r#"{"type":"object","properties":{"color":{"type":"string","enum":["off","red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"name":{"type":["string","null"],"minLength":2,"maxLength":4}},"required":["color"],"additionalProperties":false}"#;

    fn check(args: &str) -> Result<(), String> {
        message(LED, args)
    }

    #[test]
    fn rules() {
        assert_eq!(check(r#"{"color":"red","brightness":50}"#), Ok(()));
        assert_eq!(check(r#"{"color":"r\u0065d","brightness":5e1}"#), Ok(()));
        assert_eq!(
            check(""),
            Err(r#""Missing required argument \"color\"""#.into())
        );
        assert_eq!(
            check(r#"{"brightness":1}"#),
            Err(r#""Missing required argument \"color\"""#.into())
        );
        assert_eq!(
            check(r#"{"color":"purple"}"#),
            Err(r#""Invalid argument \"color\": must be one of [\"off\",\"red\",\"green\",\"blue\"]""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","brightness":150}"#),
            Err(r#""Invalid argument \"brightness\": must be <= 100""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","brightness":-1}"#),
            Err(r#""Invalid argument \"brightness\": must be >= 0""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","brightness":1.5}"#),
            Err(r#""Invalid argument \"brightness\": expected type integer""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","brightness":"5"}"#),
            Err(r#""Invalid argument \"brightness\": expected type integer""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","x\n":1}"#),
            Err(r#""Unknown argument \"x\n\": additional properties are not allowed""#.into())
        );
        assert_eq!(check(r#"{"color":"red","name":null}"#), Ok(()));
        assert_eq!(
            check(r#"{"color":"red","color":"off"}"#),
            Err(r#""Duplicate argument \"color\"""#.into())
        );
        assert_eq!(check(r#"{"color":"red","name":"é€"}"#), Ok(()));
        assert_eq!(
            check(r#"{"color":"red","name":"a"}"#),
            Err(
                r#""Invalid argument \"name\": must have at least this many characters: 2""#.into()
            )
        );
        assert_eq!(
            check(r#"{"color":"red","name":"abcde"}"#),
            Err(r#""Invalid argument \"name\": must have at most this many characters: 4""#.into())
        );
        assert_eq!(
            check(r#"{"color":"red","name":5}"#),
            Err(r#""Invalid argument \"name\": expected type [\"string\",\"null\"]""#.into())
        );
    }

    fn check_with(schema: &str, args: &str) -> Result<(), &'static str> {
        let schema = parse(schema.as_bytes()).unwrap();
        let args = parse(args.as_bytes()).unwrap();
        validate(schema, Some(args)).map_err(|v| match v.rule {
            Rule::Minimum(_) => "minimum",
            Rule::Maximum(_) => "maximum",
            Rule::ExclusiveMinimum(_) => "exclusiveMinimum",
            Rule::ExclusiveMaximum(_) => "exclusiveMaximum",
            Rule::Enum(_) => "enum",
            _ => "other",
        })
    }

    #[test]
    fn numbers_compare_exactly() {
        let bounds = r#"{"properties":{"x":{"minimum":-90,"maximum":1e2}}}"#;
        for ok in [
            "100",
            "100.0",
            "1e2",
            "-90",
            "-9e1",
            "0",
            "-0",
            "99.99999999999999999",
        ] {
            assert_eq!(
                check_with(bounds, &std::format!(r#"{{"x":{ok}}}"#)),
                Ok(()),
                "{ok}"
            );
        }
        // The same f64 as 100, but above it.
        let above = r#"{"x":100.00000000000000001}"#;
        assert_eq!(check_with(bounds, above), Err("maximum"));
        assert_eq!(
            check_with(bounds, r#"{"x":-90.0000000000000001}"#),
            Err("minimum")
        );
        assert_eq!(check_with(bounds, r#"{"x":1e400}"#), Err("maximum"));
        assert_eq!(check_with(bounds, r#"{"x":-1e400}"#), Err("minimum"));
        assert_eq!(check_with(bounds, r#"{"x":"5"}"#), Ok(())); // not a number: no bounds

        let open = r#"{"properties":{"x":{"exclusiveMinimum":0,"exclusiveMaximum":0.5}}}"#;
        assert_eq!(check_with(open, r#"{"x":0.25}"#), Ok(()));
        assert_eq!(check_with(open, r#"{"x":1e-300}"#), Ok(()));
        assert_eq!(check_with(open, r#"{"x":0}"#), Err("exclusiveMinimum"));
        assert_eq!(check_with(open, r#"{"x":-0.0}"#), Err("exclusiveMinimum"));
        assert_eq!(check_with(open, r#"{"x":5e-1}"#), Err("exclusiveMaximum"));
        assert_eq!(check_with(open, r#"{"x":0.49999999999999999999}"#), Ok(()));

        let choices = r#"{"properties":{"x":{"enum":[1,2.5,"3"]}}}"#;
        for ok in ["1", "1.0", "1e0", "10e-1", "2.50", "25e-1", "\"3\""] {
            assert_eq!(
                check_with(choices, &std::format!(r#"{{"x":{ok}}}"#)),
                Ok(()),
                "{ok}"
            );
        }
        for bad in [
            "3",
            "1.0000000000000000001",
            "2.5000000000000000001",
            "\"1\"",
        ] {
            assert_eq!(
                check_with(choices, &std::format!(r#"{{"x":{bad}}}"#)),
                Err("enum"),
                "{bad}"
            );
        }
    }

    /// `validate` on two JSON texts (no arguments when `args` is empty), the violation
    /// as its message.
    fn message(schema: &str, args: &str) -> Result<(), String> {
        let schema = parse(schema.as_bytes()).unwrap();
        let args = (!args.is_empty()).then(|| parse(args.as_bytes()).unwrap());
        validate(schema, args).map_err(|v| {
            let mut buf = heapless::Vec::<u8, 256>::new();
            let mut w = JsonWriter::new(&mut buf);
            v.write_message(&mut w);
            String::from_utf8(buf.to_vec()).unwrap()
        })
    }

    #[test]
    fn argument_names_and_keywords_decoded() {
        // An argument name spelled with an escape is the property it decodes to (as
        // `ToolCall::arg` and `Value::get` read it): checked, required, given twice.
        assert_eq!(check(r#"{"col\u006fr":"red"}"#), Ok(()));
        assert_eq!(
            check(r#"{"color":"red","n\u0061me":"x"}"#),
            Err(
                r#""Invalid argument \"n\u0061me\": must have at least this many characters: 2""#
                    .into()
            )
        );
        assert_eq!(
            check(r#"{"color":"red","col\u006fr":"off"}"#),
            Err(r#""Duplicate argument \"col\u006fr\"""#.into())
        );
        assert_eq!(
            check(r#"{"\u0063olor":"purple"}"#),
            Err(r#""Invalid argument \"\u0063olor\": must be one of [\"off\",\"red\",\"green\",\"blue\"]""#.into())
        );
        // An open schema too: no way around a rule by spelling the name differently.
        let open = r#"{"properties":{"a":{"type":"integer","maximum":3}}}"#;
        assert_eq!(
            message(open, r#"{"\u0061":5}"#),
            Err(r#""Invalid argument \"\u0061\": must be <= 3""#.into())
        );
        assert_eq!(message(open, r#"{"\u0062":5}"#), Ok(()));
        // A property name spelled with an escape, an argument with or without one.
        let escaped = r#"{"properties":{"\u0078":{"maximum":1}},"additionalProperties":false}"#;
        assert_eq!(
            message(escaped, r#"{"x":5}"#),
            Err(r#""Invalid argument \"x\": must be <= 1""#.into())
        );
        assert_eq!(
            message(escaped, r#"{"\u0078":5}"#),
            Err(r#""Invalid argument \"\u0078\": must be <= 1""#.into())
        );
        assert!(message(escaped, r#"{"\u0078":0,"y":0}"#).is_err());
        // Keywords are read by their decoded names.
        let keywords = r#"{"propert\u0069es":{"x":{"m\u0061ximum":1}},"requ\u0069red":["x"],"additionalPropert\u0069es":false}"#;
        assert_eq!(
            message(keywords, "{}"),
            Err(r#""Missing required argument \"x\"""#.into())
        );
        assert_eq!(
            message(keywords, r#"{"x":2}"#),
            Err(r#""Invalid argument \"x\": must be <= 1""#.into())
        );
        assert_eq!(
            message(keywords, r#"{"y":0,"x":0}"#),
            Err(r#""Unknown argument \"y\": additional properties are not allowed""#.into())
        );
        assert_eq!(message(keywords, r#"{"x":0}"#), Ok(()));
    }

    #[test]
    fn duplicates_come_before_other_rules_but_not_required() {
        let dup = |name: &str| Err(std::format!(r#""Duplicate argument \"{name}\"""#));
        // After a broken argument, and after an unknown one: the duplicate counts.
        assert_eq!(check(r#"{"color":"purple","color":"red"}"#), dup("color"));
        assert_eq!(
            check(r#"{"color":"red","brightness":150,"x":1,"brightness":1}"#),
            dup("brightness")
        );
        assert_eq!(check(r#"{"color":"red","x":1,"y":2,"x":3}"#), dup("x"));
        // The second of them, and the first pair given.
        assert_eq!(
            check(r#"{"color":"red","name":"ab","color":"off","name":"ab"}"#),
            dup("color")
        );
        // Missing required arguments still come first.
        assert_eq!(
            check(r#"{"brightness":1,"brightness":2}"#),
            Err(r#""Missing required argument \"color\"""#.into())
        );
        // Escaped and plain spellings of a name are one name.
        assert_eq!(
            check(r#"{"color":"red","c\u006flor":"red"}"#),
            dup("c\\u006flor")
        );
        assert_eq!(
            message("{}", r#"{"a":1,"\u0061":2}"#),
            dup("\\u0061"),
            "the same name decoded"
        );
        // Duplicates are refused whatever the schema.
        assert_eq!(message("[]", r#"{"a":1,"b":2,"a":3}"#), dup("a"));
        assert_eq!(message("{}", r#"{"a":1,"b":2,"b":3}"#), dup("b"));
    }

    #[test]
    fn first_of_each_name_counts() {
        // Properties, required and keywords given twice: the first counts.
        let twice = r#"{"properties":{"x":{"maximum":1},"x":{"maximum":10}}}"#;
        assert_eq!(
            message(twice, r#"{"x":5}"#),
            Err(r#""Invalid argument \"x\": must be <= 1""#.into())
        );
        let twice = r#"{"properties":{"x":{"maximum":10,"maximum":1}}}"#;
        assert_eq!(message(twice, r#"{"x":5}"#), Ok(()));
        let twice = r#"{"required":["a"],"required":["b"]}"#;
        assert_eq!(message(twice, r#"{"a":1}"#), Ok(()));
        assert_eq!(
            message(twice, r#"{"b":1}"#),
            Err(r#""Missing required argument \"a\"""#.into())
        );
        let twice = r#"{"properties":{},"properties":{"x":{"maximum":1}}}"#;
        assert_eq!(message(twice, r#"{"x":5}"#), Ok(()));
        let twice = r#"{"additionalProperties":true,"additionalProperties":false}"#;
        assert_eq!(message(twice, r#"{"x":5}"#), Ok(()));
    }

    #[test]
    fn schemas_that_are_not_objects() {
        let unknown =
            Err(r#""Unknown argument \"x\": additional properties are not allowed""#.into());
        // `properties` not an object: nothing is declared.
        let odd = r#"{"properties":5,"additionalProperties":false}"#;
        assert_eq!(message(odd, r#"{"x":1}"#), unknown);
        assert_eq!(message(odd, ""), Ok(()));
        // No `properties` at all.
        assert_eq!(
            message(r#"{"additionalProperties":false}"#, r#"{"x":1}"#),
            unknown
        );
        // A property schema that is not an object: declared, no rule.
        let odd =
            r#"{"properties":{"x":true,"y":[{"maximum":1}],"z":{}},"additionalProperties":false}"#;
        assert_eq!(message(odd, r#"{"x":1,"y":2,"z":3}"#), Ok(()));
        // The schema itself not an object.
        assert_eq!(message("[]", r#"{"x":1}"#), Ok(()));
        assert_eq!(message("true", ""), Ok(()));
        // Required names that are not strings are passed over.
        assert_eq!(
            message(r#"{"required":[1,null,"a"]}"#, r#"{"a":1}"#),
            Ok(())
        );
    }

    #[test]
    fn many_arguments() {
        // More arguments than anything might hold on the stack: 40, each declared.
        let mut schema = String::from(r#"{"properties":{"#);
        let mut args = String::from("{");
        for i in 0..40 {
            let sep = if i == 0 { "" } else { "," };
            schema += &std::format!(r#"{sep}"a{i}":{{"type":"integer","maximum":10}}"#);
            args += &std::format!(r#"{sep}"a{i}":{}"#, if i == 37 { 11 } else { i % 10 });
        }
        schema += r#"},"required":["a39"],"additionalProperties":false}"#;
        assert_eq!(
            message(&schema, &(args.clone() + "}")),
            Err(r#""Invalid argument \"a37\": must be <= 10""#.into())
        );
        // An unknown one after it does not come first; a duplicate does.
        assert_eq!(
            message(&schema, &(args.clone() + r#","b":1}"#)),
            Err(r#""Invalid argument \"a37\": must be <= 10""#.into())
        );
        assert_eq!(
            message(&schema, &(args.clone() + r#","b":1,"a3":1}"#)),
            Err(r#""Duplicate argument \"a3\"""#.into())
        );
        let fixed = args.replace(r#""a37":11"#, r#""a37":7"#);
        assert_eq!(message(&schema, &(fixed.clone() + "}")), Ok(()));
        assert_eq!(
            message(&schema, &(fixed.clone() + r#","b":1}"#)),
            Err(r#""Unknown argument \"b\": additional properties are not allowed""#.into())
        );
        let partial = fixed.replace(r#","a39":9"#, "");
        assert_eq!(
            message(&schema, &(partial + "}")),
            Err(r#""Missing required argument \"a39\"""#.into())
        );
    }

    #[test]
    fn length_bounds_are_read_as_as_u64_reads_them() {
        for literal in [
            "0",
            "-0",
            "1",
            "7",
            "10",
            "4294967296",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "100000000000000000000",
            "184467440737095516150",
            "-1",
            "-10",
            "1.0",
            "0.0",
            "-0.0",
            "1e1",
            "1E1",
            "10e-1",
            "\"5\"",
            "\"\"",
            "true",
            "null",
            "[1]",
            "{}",
        ] {
            let v = parse(literal.as_bytes()).unwrap();
            assert_eq!(count(v), v.as_u64(), "{literal}");
        }
        let bounds = r#"{"properties":{"s":{"minLength":-0,"maxLength":18446744073709551616}}}"#;
        assert_eq!(message(bounds, r#"{"s":""}"#), Ok(()));
        let bounds = r#"{"properties":{"s":{"minLength":18446744073709551615}}}"#;
        assert!(message(bounds, r#"{"s":"abc"}"#).is_err());
        let bounds = r#"{"properties":{"s":{"minLength":2.0,"maxLength":1e0}}}"#;
        assert_eq!(message(bounds, r#"{"s":"abc"}"#), Ok(()));
    }

    // ---- against the reference --------------------------------------------------

    /// The straightforward implementation (each lookup its own walk, every value
    /// skipped before it is read): `validate` must answer exactly as it does.
    mod reference {
        use super::super::*;
        extern crate std;

        /// The decoded text of a string.
        fn decoded(s: crate::wire::json::Str<'_>) -> std::vec::Vec<u8> {
            let mut buf = std::vec![0u8; s.decoded_len()];
            s.unescape_into(&mut buf).unwrap();
            buf
        }

        /// The first member named `key` (names compared decoded).
        fn member<'v>(
            object: Value<'v>,
            key: crate::wire::json::Str<'_>,
        ) -> Option<(usize, Value<'v>)> {
            object
                .members()
                .enumerate()
                .find(|(_, (k, _))| decoded(*k) == decoded(key))
                .map(|(i, (_, v))| (i, v))
        }

        fn json_eq(a: Value<'_>, b: Value<'_>) -> bool {
            if let (Some(x), Some(plain)) = (a.as_str(), b.as_str().filter(|y| !y.has_escapes())) {
                return x.eq_bytes(plain.raw());
            }
            match a.cmp_number(&b) {
                Some(order) => order == Ordering::Equal,
                None => a.raw() == b.raw(),
            }
        }

        fn check_property<'s>(prop: Value<'s>, v: Value<'_>) -> Result<(), Rule<'s>> {
            let mut found = [None; PROPERTY_KEYS.len()];
            prop.get_each(&PROPERTY_KEYS, &mut found);
            let [ty, allowed, bounds @ ..] = found;
            if let Some(t) = ty {
                if !(type_matches(t, v) || t.items().any(|n| type_matches(n, v))) {
                    return Err(Rule::Type(t));
                }
            }
            if let Some(e) = allowed {
                if !e.items().any(|allowed| json_eq(v, allowed)) {
                    return Err(Rule::Enum(e));
                }
            }
            let breaks = [
                [Ordering::Less; 2],
                [Ordering::Greater; 2],
                [Ordering::Less, Ordering::Equal],
                [Ordering::Greater, Ordering::Equal],
                [Ordering::Less; 2],
                [Ordering::Greater; 2],
            ];
            let length = v.as_str().map(|s| s.char_count() as u64);
            for (i, (bound, breaks)) in bounds.iter().zip(breaks.iter()).enumerate() {
                let Some(b) = *bound else { continue };
                let order = if i >= 4 {
                    length.zip(b.as_u64()).map(|(n, limit)| n.cmp(&limit))
                } else {
                    v.cmp_number(&b)
                };
                if order.is_some_and(|o| breaks.contains(&o)) {
                    return Err(bound_rule(i, b));
                }
            }
            Ok(())
        }

        pub(super) fn validate<'s>(
            schema: Value<'s>,
            args: Option<Value<'s>>,
        ) -> Result<(), Violation<'s, 's>> {
            let mut found = [None; 3];
            schema.get_each(
                &["properties", "required", "additionalProperties"],
                &mut found,
            );
            let [props, required, additional] = found;
            if let Some(required) = required {
                for name in required.items().filter_map(|n| n.as_str()) {
                    if args.and_then(|a| member(a, name)).is_none() {
                        return Err(Violation {
                            argument: name,
                            rule: Rule::Required,
                        });
                    }
                }
            }
            let closed = additional.is_some_and(|v| v.raw() == b"false");
            let Some(args) = args else { return Ok(()) };
            for (i, (key, _)) in args.members().enumerate() {
                if member(args, key).is_some_and(|(first, _)| first != i) {
                    return Err(Violation {
                        argument: key,
                        rule: Rule::Duplicate,
                    });
                }
            }
            for (key, value) in args.members() {
                match props.and_then(|p| member(p, key)) {
                    Some((_, prop)) => check_property(prop, value).map_err(|rule| Violation {
                        argument: key,
                        rule,
                    })?,
                    None if closed => {
                        return Err(Violation {
                            argument: key,
                            rule: Rule::Unknown,
                        })
                    }
                    None => {}
                }
            }
            Ok(())
        }
    }

    use proptest::prelude::*;
    use std::string::ToString;
    use std::vec::Vec;

    /// A JSON object from members already written as `"key":value`.
    fn object(members: Vec<String>) -> String {
        std::format!("{{{}}}", members.join(","))
    }

    /// Names as written: plain, and escaped spellings of the same.
    fn arb_name() -> impl Strategy<Value = &'static str> {
        prop::sample::select(std::vec!["a", "b", "c", "ab", r"\u0061", r"\u0062"])
    }

    /// A keyword as written (sometimes escaped), with a value for it.
    fn arb_keyword() -> impl Strategy<Value = String> {
        let names = prop::sample::select(std::vec![
            "type",
            "t\\u0079pe",
            "enum",
            "minimum",
            "maximum",
            "m\\u0061ximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minLength",
            "maxLength",
            "maxLengt\\u0068",
            "description",
        ]);
        let values = prop::sample::select(std::vec![
            r#""string""#,
            r#""integer""#,
            r#""boolean""#,
            r#"["y","x"]"#,
            r#""number""#,
            r#""null""#,
            r#""str\u0069ng""#,
            r#""bogus""#,
            r#"["string","null"]"#,
            r#"["integer","string"]"#,
            r#"[1,"x",2.5,"\u0079"]"#,
            r#"["a","ab"]"#,
            "[]",
            "0",
            "1",
            "-1",
            "2.5",
            "1e1",
            "-0",
            "3",
            "18446744073709551616",
            "100.00000000000000001",
            r#""3""#,
            "true",
            "{}",
        ]);
        (names, values).prop_map(|(n, v)| std::format!(r#""{n}":{v}"#))
    }

    fn arb_property_schema() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => proptest::collection::vec(arb_keyword(), 0..5).prop_map(object),
            1 => prop::sample::select(std::vec!["true", "5", "[]"]).prop_map(String::from),
        ]
    }

    fn arb_schema() -> impl Strategy<Value = String> {
        let properties = prop_oneof![
            5 => proptest::collection::vec(
                (arb_name(), arb_property_schema())
                    .prop_map(|(n, s)| std::format!(r#""{n}":{s}"#)),
                0..5,
            )
            .prop_map(object),
            1 => Just(String::from("5")),
        ];
        let required = proptest::collection::vec(
            prop_oneof![
                4 => arb_name().prop_map(|n| std::format!(r#""{n}""#)),
                1 => Just(String::from("1")),
            ],
            0..3,
        )
        .prop_map(|names| std::format!("[{}]", names.join(",")));
        let additional = prop::sample::select(std::vec!["false", "true", r#""false""#]);
        let member = prop_oneof![
            3 => properties.prop_map(|p| std::format!(r#""properties":{p}"#)),
            1 => Just(String::from(r#""propert\u0069es":{"a":{"maximum":0}}"#)),
            2 => required.prop_map(|r| std::format!(r#""required":{r}"#)),
            2 => additional.prop_map(|a| std::format!(r#""additionalProperties":{a}"#)),
            1 => Just(String::from(r#""type":"object""#)),
        ];
        proptest::collection::vec(member, 0..5).prop_map(object)
    }

    fn arb_args() -> impl Strategy<Value = String> {
        let values = prop::sample::select(std::vec![
            "0",
            "1",
            "-1",
            "1.0",
            "1.5",
            "2.5",
            "3",
            "1e1",
            "-0",
            "100.00000000000000001",
            r#""x""#,
            r#""\u0078""#,
            r#""y""#,
            r#""a""#,
            r#""ab""#,
            r#""abc""#,
            r#""é€""#,
            r#""3""#,
            "true",
            "null",
            "[1]",
            "{}",
        ]);
        prop_oneof![
            1 => Just(String::new()),
            8 => proptest::collection::vec(
                (arb_name(), values).prop_map(|(n, v)| std::format!(r#""{n}":{v}"#)),
                0..7,
            )
            .prop_map(object),
        ]
    }

    /// Most generated schemas fit a plan (the property test above would otherwise
    /// mostly compare the walk with itself).
    #[test]
    fn most_generated_schemas_compile() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = arb_schema();
        // Fewer under Miri, which runs ~1000 times slower.
        let total = if cfg!(miri) { 40 } else { 1000 };
        let compiled = (0..total)
            .filter(|_| {
                let schema = strategy.new_tree(&mut runner).unwrap().current();
                Plan::compile(&schema).is_compiled()
            })
            .count();
        assert!(compiled * 10 > total * 3, "{compiled} of {total} compiled");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn answers_as_the_reference(schema in arb_schema(), args in arb_args()) {
            let s = parse(schema.as_bytes()).unwrap();
            let a = (!args.is_empty()).then(|| parse(args.as_bytes()).unwrap());
            let ours = std::format!("{:?}", validate(s, a));
            let theirs = std::format!("{:?}", reference::validate(s, a));
            prop_assert_eq!(ours, theirs, "schema {} args {}", schema, args);
        }

        /// A compiled plan answers as the walk over the text, whitespace or not.
        #[test]
        fn plans_answer_as_the_reference(
            schema in arb_schema(),
            args in arb_args(),
            spaced in any::<bool>(),
        ) {
            // No generated string holds `:` or `,`: spacing them out keeps the JSON.
            let schema = if spaced {
                schema.replace(':', " :\t").replace(',', " ,\n ")
            } else {
                schema
            };
            let s = parse(schema.as_bytes()).unwrap();
            let a = (!args.is_empty()).then(|| parse(args.as_bytes()).unwrap());
            let plan = Plan::compile(&schema);
            let ours = std::format!("{:?}", plan.validate(a));
            let theirs = std::format!("{:?}", reference::validate(s, a));
            prop_assert_eq!(ours, theirs, "schema {} args {}", schema, args);
            // The arguments filed as checked answer lookups as a walk over them does.
            if let (Some(a), Some(filed)) = (a, {
                let mut filed = None;
                let _ = plan.as_ref().validate_filing(a, &mut filed);
                filed
            }) {
                for name in ["a", "b", "c", "ab", r"\u0061"] {
                    if let Some(v) = filed.get(name) {
                        prop_assert_eq!(v.map(|v| v.raw()), a.get(name).map(|v| v.raw()));
                    }
                }
            }
        }

        #[test]
        fn length_bounds_as_u64(n in any::<u64>(), digits in "[0-9]{1,22}") {
            for text in [n.to_string(), digits] {
                let v = parse(text.as_bytes()).or_else(|_| parse(b"0")).unwrap();
                prop_assert_eq!(count(v), v.as_u64(), "{}", text);
            }
        }
    }
}
