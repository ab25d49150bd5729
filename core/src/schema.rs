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
//! ```
//! use emcp::json::parse;
//! use emcp::schema::validate;
//! let schema = parse(br#"{"type":"object","properties":{"b":{"type":"integer","maximum":100}},"required":["b"]}"#).unwrap();
//! assert!(validate(schema, Some(parse(br#"{"b":50}"#).unwrap())).is_ok());
//! assert!(validate(schema, Some(parse(br#"{"b":150}"#).unwrap())).is_err());
//! assert!(validate(schema, None).is_err());
//! ```

use core::cmp::Ordering;

use crate::json::{JsonWriter, Kind, Str, Value};

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
    /// Write the message as a JSON string value, e.g.
    /// `Invalid argument "brightness": must be <= 100`.
    pub fn write_message(&self, w: &mut JsonWriter<'_>) {
        w.string_begin();
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
            Rule::Duplicate => ("\"", None),
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
        Some(i) => TYPE_KINDS.get(i) == Some(&v.kind()) && (i != INTEGER || v.is_integral()),
        None => true, // unknown type names are not ours to judge
    }
}

fn json_eq(a: Value<'_>, b: Value<'_>) -> bool {
    // A string against an allowed string without escapes: by decoded content.
    if let (Some(x), Some(plain)) = (a.as_str(), b.as_str().filter(|y| !y.has_escapes())) {
        return x.eq_bytes(plain.raw());
    }
    // Two numbers compare by value (`cmp_number` is `None` unless both are numbers);
    // anything else, escaped strings included, by its text.
    match a.cmp_number(&b) {
        Some(order) => order == Ordering::Equal,
        None => a.raw() == b.raw(),
    }
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

fn check_property<'s>(prop: Value<'s>, v: Value<'_>) -> Result<(), Rule<'s>> {
    let mut found = [None; PROPERTY_KEYS.len()];
    prop.get_each(&PROPERTY_KEYS, &mut found);
    let [ty, allowed, bounds @ ..] = found;
    if let Some(t) = ty {
        // A name, or an array of names (an array is no name, a name has no items).
        let ok = type_matches(t, v) || t.items().any(|n| type_matches(n, v));
        if !ok {
            return Err(Rule::Type(t));
        }
    }
    if let Some(e) = allowed {
        if !e.items().any(|allowed| json_eq(v, allowed)) {
            return Err(Rule::Enum(e));
        }
    }
    // Numbers compare by their exact decimal values: `100.00000000000000001` is above a
    // maximum of 100 although both are the same `f64`.
    let length = v.as_str().map(|s| s.char_count() as u64);
    for (i, (bound, breaks)) in bounds.iter().zip(BOUND_BREAKS.iter()).enumerate() {
        let Some(b) = *bound else { continue };
        let order = if i >= FIRST_LENGTH_BOUND {
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

/// How the argument compares with each bound of [`PROPERTY_KEYS`] (from `minimum` on,
/// in the order they are checked) when it breaks it; the ones from
/// [`FIRST_LENGTH_BOUND`] on bound a string's length in characters, the others a
/// number's value.
const BOUND_BREAKS: [[Ordering; 2]; 6] = [
    [Ordering::Less; 2],
    [Ordering::Greater; 2],
    [Ordering::Less, Ordering::Equal],
    [Ordering::Greater, Ordering::Equal],
    [Ordering::Less; 2],
    [Ordering::Greater; 2],
];

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

/// The first member of `object` whose key is spelled `key` (compared as written,
/// escapes included), with its position among the members.
fn member<'v>(object: Value<'v>, key: &[u8]) -> Option<(usize, Value<'v>)> {
    object
        .members()
        .enumerate()
        .find(|(_, (k, _))| k.raw() == key)
        .map(|(i, (_, v))| (i, v))
}

/// Check `args` (an object, or `None` when the request had no arguments) against
/// `schema`. The first violation found is returned: missing required arguments first,
/// then the arguments in the order given.
pub fn validate<'s>(schema: Value<'s>, args: Option<Value<'s>>) -> Result<(), Violation<'s, 's>> {
    let mut found = [None; 3];
    schema.get_each(
        &["properties", "required", "additionalProperties"],
        &mut found,
    );
    let [props, required, additional] = found;
    if let Some(required) = required {
        for name in required.items().filter_map(|n| n.as_str()) {
            if args.and_then(|a| member(a, name.raw())).is_none() {
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
        // Given before when its first occurrence is not this one.
        if member(args, key.raw()).is_some_and(|(first, _)| first != i) {
            return Err(Violation {
                argument: key,
                rule: Rule::Duplicate,
            });
        }
    }
    for (key, value) in args.members() {
        match props.and_then(|p| member(p, key.raw())) {
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::json::parse;
    use std::string::String;

    const LED: &str = r#"{"type":"object","properties":{"color":{"type":"string","enum":["off","red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"name":{"type":["string","null"],"minLength":2,"maxLength":4}},"required":["color"],"additionalProperties":false}"#;

    fn check(args: &str) -> Result<(), String> {
        let schema = parse(LED.as_bytes()).unwrap();
        let args = if args.is_empty() {
            None
        } else {
            Some(parse(args.as_bytes()).unwrap())
        };
        validate(schema, args).map_err(|v| {
            let mut buf = heapless::Vec::<u8, 256>::new();
            let mut w = JsonWriter::new(&mut buf);
            v.write_message(&mut w);
            String::from_utf8(buf.to_vec()).unwrap()
        })
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
}
