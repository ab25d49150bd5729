//! Input schemas compiled ahead of time: [`Plan`].
//!
//! [`validate`](super::validate) walks a schema's text on every call: its top level
//! for `properties`, `required` and `additionalProperties`, then `properties` for the
//! argument's property, then that property's keywords. A [`Plan`] does those walks
//! once — at compile time, [`Plan::compile`] being a `const fn` — and keeps where each
//! keyword's value is in the text. Checking arguments then reads only the arguments
//! and the few values the rules compare with (an `enum` array, a bound), with the
//! same rules and the same answers.
//!
//! A plan is attached to a tool with [`Tool::plan`](crate::model::registry::Tool::plan);
//! a C device's comes from the generator `emcp-plan` as words in flash ([`layout`]),
//! read in place through a [`PlanRef`]. A tool without one is checked by walking its
//! schema as before. A schema the plan cannot hold — more than
//! [`MAX_PLAN_PROPERTIES`] properties, a keyword spelled with an escape, text longer
//! than 65,535 bytes — gives a plan that walks the text too.
//!
//! ```
//! use emcp::wire::json::parse;
//! use emcp::model::schema::Plan;
//!
//! const SCHEMA: &str = r#"{"type":"object","properties":{"b":{"type":"integer","maximum":100}},"required":["b"]}"#;
//! static PLAN: Plan<'static> = Plan::compile(SCHEMA);
//! assert!(PLAN.is_compiled());
//! assert!(PLAN.validate(Some(parse(br#"{"b":50}"#).unwrap())).is_ok());
//! assert!(PLAN.validate(Some(parse(br#"{"b":150}"#).unwrap())).is_err());
//! assert!(PLAN.validate(None).is_err());
//! ```

use super::{
    check_bounds, first_missing, given_before, is_type, json_eq, type_matches, Rule, Violation,
    PROPERTY_KEYS, SCHEMA_KEYS, TYPE_NAMES,
};
// The const walkers share the compile-time JSON validator's byte reader.
use crate::wire::hash::fnv1a;
use crate::wire::json::konst::{byte, ws as skip_ws};
use crate::wire::json::scanner::same_bytes;
use crate::wire::json::Value;

mod fast;
pub mod layout;
mod plain;

// The forms, chosen once: `fast` on hosts (a plain `enum`'s strings filed when
// compiling), `plain` on small targets (the `enum` text looked through: a smaller
// plan). Both are compiled everywhere and tested against each other.
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

/// Properties a [`Plan`] holds; a schema with more is checked by walking its text.
pub const MAX_PLAN_PROPERTIES: usize = 8;

/// Where a value (or a property name's content) is in the schema text. `end == 0`:
/// absent (no value is empty, and no name ends at the text's first byte).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u16,
    end: u16,
}

impl Span {
    const NONE: Span = Span { start: 0, end: 0 };

    /// `start..end` (both within a text of at most `u16::MAX` bytes).
    const fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u16,
            end: end as u16,
        }
    }

    /// `(start, end)`.
    const fn range(self) -> (usize, usize) {
        (self.start as usize, self.end as usize)
    }
}

/// A property: its name as written, its keywords' values in `PROPERTY_KEYS` order,
/// and what its `type` and `enum` are.
///
/// `#[repr(C)]` of `u16`, `i32` and `u8` fields and no padding ([`layout`]): every bit
/// pattern is a value, so a C image may hold one in flash ([`PlanRef::from_parts`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    name: Span,
    keywords: [Span; PROPERTY_KEYS.len()],
    /// With `int_bounds`: the bounds as integers (`i32::MIN` and `i32::MAX` when absent).
    int_min: i32,
    int_max: i32,
    /// The index of the `type` in [`TYPE_NAMES`], or [`ANY_TYPE`], or [`TYPE_LIST`].
    ty: u8,
    /// Non-zero: `enum` is an array of strings without escapes (an argument is one of
    /// them when its text is one of theirs, or when it is a string with escapes equal
    /// to one).
    plain_enum: u8,
    /// Non-zero: a string found among a plain `enum`'s passes every rule: the `type` is
    /// `string` or anything, and there are no bounds.
    enum_settles: u8,
    /// Non-zero: the bounds are `minimum` and `maximum` only (one or both), each an
    /// integer of at most nine digits: `int_min` and `int_max`, against which an
    /// argument of at most nine digits is checked as an integer.
    int_bounds: u8,
}

impl Property {
    const NONE: Property = Property {
        name: Span::NONE,
        keywords: [Span::NONE; PROPERTY_KEYS.len()],
        int_min: i32::MIN,
        int_max: i32::MAX,
        ty: ANY_TYPE,
        plain_enum: 0,
        enum_settles: 0,
        int_bounds: 0,
    };
}

/// What a plan knows of the schema's top level, and what it was compiled from.
///
/// `#[repr(C)]` of `u32`, `u16` and `u8` fields and no padding ([`layout`]): every bit
/// pattern is a value, so a C image may hold one in flash ([`PlanRef::from_parts`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// FNV-1a of the schema text ([`fnv1a`]): a plan is used only for the text it was
    /// compiled from.
    hash: u32,
    /// The schema text's length in bytes.
    len: u16,
    /// Zero: the schema did not fit the plan; it is checked by walking its text.
    compiled: u8,
    /// Non-zero: `additionalProperties` is `false`.
    closed: u8,
    required: Span,
    /// The declared properties `required` names, in its order (indices into the
    /// properties); `required_count == u8::MAX`: it names something else, and the
    /// arguments are looked up by walking it.
    required_props: [u8; MAX_PLAN_PROPERTIES],
    required_count: u8,
    /// The properties that follow the head.
    count: u8,
    /// [`layout::VERSION`]: the layout these fields were written in.
    version: u16,
}

/// [`Property::ty`] of `string`.
const STRING: u8 = 0;

/// [`Property::ty`] of `number`.
const NUMBER: u8 = 1;

/// [`Property::ty`] of `integer`.
const INTEGER: u8 = 2;

/// [`Property::ty`] of a `type` that names no type of [`TYPE_NAMES`] (anything goes).
const ANY_TYPE: u8 = TYPE_NAMES.len() as u8;

/// [`Property::ty`] of a `type` that is not a string (an array of names).
const TYPE_LIST: u8 = ANY_TYPE + 1;

/// A tool's input schema compiled for argument checking (see the [module
/// docs](self)). About 420 bytes; build it in a `static` or an inline `const` block so
/// that the compiling happens at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan<'a> {
    source: &'a str,
    head: Head,
    properties: [Property; MAX_PLAN_PROPERTIES],
    /// The strings of the properties' plain `enum`s (on hosts: filed, see
    /// [`fast::Items`]; on small targets nothing, the `enum` text is looked through).
    items: form::Items,
}

impl<'a> Plan<'a> {
    /// Compile `schema` (JSON text; [`Server::new`](crate::Server::new) refuses a tool
    /// whose schema is not a JSON object, and one whose plan was compiled from other
    /// text). Keywords are found as [`validate`](super::validate) finds them: the
    /// first of each name counts, and a property is found by its name as written.
    pub const fn compile(schema: &'a str) -> Plan<'a> {
        let s = schema.as_bytes();
        let mut plan = Plan {
            source: schema,
            head: Head {
                hash: fnv1a(s),
                len: s.len() as u16,
                compiled: 0,
                closed: 0,
                required: Span::NONE,
                required_props: [0; MAX_PLAN_PROPERTIES],
                required_count: 0,
                count: 0,
                version: layout::VERSION,
            },
            properties: [Property::NONE; MAX_PLAN_PROPERTIES],
            items: form::Items::NONE,
        };
        let open = skip_ws(s, 0);
        let mut top = [Span::NONE; SCHEMA_KEYS.len()];
        if s.len() > u16::MAX as usize
            || byte(s, open) != b'{'
            || !file_keys(s, open, &SCHEMA_KEYS, &mut top)
        {
            return plan;
        }
        let [properties, required, additional] = top;
        if properties.end != 0 && !plan.compile_properties(s, properties.range()) {
            return plan;
        }
        plan.head.required = required;
        plan.head.closed = eq_at(s, additional.range(), b"false") as u8;
        plan.compile_required(s);
        plan.head.compiled = 1;
        plan
    }

    /// File the declared properties the `required` array names (its strings; other
    /// items name nothing), or note that it names something else.
    const fn compile_required(&mut self, s: &[u8]) {
        if self.head.required.end == 0 || byte(s, self.head.required.start as usize) != b'[' {
            return;
        }
        let mut i = self.head.required.start as usize + 1;
        loop {
            let at = skip_ws(s, i);
            match byte(s, at) {
                b']' => return,
                b'"' => {
                    // A name spelled with an escape: `required` is walked (decoded).
                    let Some((end, false)) = string_end(s, at) else {
                        self.head.required_count = u8::MAX;
                        return;
                    };
                    let name = (at + 1, end - 1);
                    let mut k = 0;
                    let mut found = false;
                    while k < self.head.count as usize && !found {
                        if let Some((_, [p, ..])) = self.properties.split_at_checked(k) {
                            found = eq_at(s, name, slice(s, p.name.range()));
                        }
                        if !found {
                            k += 1;
                        }
                    }
                    match self
                        .head
                        .required_props
                        .split_at_mut_checked(self.head.required_count as usize)
                    {
                        Some((_, [slot, ..])) if found => *slot = k as u8,
                        _ => {
                            self.head.required_count = u8::MAX;
                            return;
                        }
                    }
                    self.head.required_count += 1;
                    i = end;
                }
                _ => match value_end(s, at) {
                    Some(end) => i = end,
                    None => {
                        self.head.required_count = u8::MAX;
                        return;
                    }
                },
            }
            let after = skip_ws(s, i);
            match byte(s, after) {
                b',' => i = after + 1,
                _ => i = after,
            }
        }
    }

    /// File the properties of the `properties` value at `value`; false when they do
    /// not fit the plan.
    const fn compile_properties(&mut self, s: &[u8], value: (usize, usize)) -> bool {
        // Not an object: no properties (as the walk over the text finds none).
        if byte(s, value.0) != b'{' {
            return true;
        }
        let mut i = value.0 + 1;
        loop {
            match member(s, i) {
                Step::End => return true,
                Step::Bad => return false,
                Step::Member {
                    key,
                    escaped,
                    value,
                    next,
                } => {
                    // A property name spelled with an escape: the text is walked
                    // (names compare decoded; a plan compares its names as written).
                    if escaped {
                        return false;
                    }
                    let mut property = Property::NONE;
                    property.name = Span::new(key.0, key.1);
                    if !file_keys(s, value.0, &PROPERTY_KEYS, &mut property.keywords) {
                        return false;
                    }
                    let [ty, allowed, min, max, others @ ..] = property.keywords;
                    property.ty = type_code(s, ty);
                    let plain_enum = plain_strings(s, allowed);
                    property.plain_enum = plain_enum as u8;
                    if plain_enum {
                        self.items.file(self.head.count as usize, s, allowed);
                    }
                    let [x_min, x_max, min_len, max_len] = others;
                    let others = x_min.end | x_max.end | min_len.end | max_len.end;
                    property.enum_settles = (plain_enum
                        && (property.ty == STRING || property.ty == ANY_TYPE)
                        && (others | min.end | max.end) == 0)
                        as u8;
                    if others == 0 && (min.end != 0 || max.end != 0) {
                        if let (Some(lo), Some(hi)) = (
                            small_int(slice(s, min.range()), i32::MIN),
                            small_int(slice(s, max.range()), i32::MAX),
                        ) {
                            property.int_bounds = 1;
                            property.int_min = lo;
                            property.int_max = hi;
                        }
                    }
                    match self
                        .properties
                        .split_at_mut_checked(self.head.count as usize)
                    {
                        Some((_, [slot, ..])) => *slot = property,
                        _ => return false,
                    }
                    self.head.count += 1;
                    i = next;
                }
            }
        }
    }

    /// The schema text the plan was compiled from.
    pub const fn source(&self) -> &'a str {
        self.source
    }

    /// Whether the schema fitted the plan (otherwise [`Plan::validate`] walks the
    /// schema's text, as [`validate`](super::validate) does).
    pub const fn is_compiled(&self) -> bool {
        self.head.compiled != 0
    }

    /// Check `args` as [`validate`](super::validate) checks them against the schema
    /// the plan was compiled from: the same rules, the same first violation.
    ///
    /// # Errors
    ///
    /// The first violation: missing required arguments first, then the arguments in
    /// the order given.
    pub fn validate<'s>(&'s self, args: Option<Value<'s>>) -> Result<(), Violation<'s, 's>> {
        self.as_ref().validate(args)
    }

    /// The plan as the server reads it: its head and its properties, borrowed.
    pub fn as_ref(&self) -> PlanRef<'_> {
        PlanRef {
            source: self.source,
            head: &self.head,
            properties: self
                .properties
                .get(..usize::from(self.head.count))
                .unwrap_or_default(),
            items: Some(&self.items),
        }
    }

    /// The head.
    pub const fn head(&self) -> &Head {
        &self.head
    }

    /// The properties the schema declares, in its order.
    pub fn properties(&self) -> &[Property] {
        self.as_ref().properties
    }
}

/// A compiled schema as the server reads it ([`Device::tool_plan`](crate::Device::tool_plan)):
/// borrowed from a [`Plan`] ([`Plan::as_ref`]), or put together from a head and
/// properties kept elsewhere, e.g. in a C image's flash ([`PlanRef::from_parts`]).
#[derive(Clone, Copy, Debug)]
pub struct PlanRef<'a> {
    source: &'a str,
    head: &'a Head,
    properties: &'a [Property],
    /// On hosts, a [`Plan`]'s filed `enum` strings; `None`: looked for in the text.
    items: Option<&'a form::Items>,
}

impl<'a> PlanRef<'a> {
    /// A plan of `source` from a head and its properties (as [`Plan::head`] and
    /// [`Plan::properties`] give them, e.g. copied into a C image by a generator).
    /// [`PlanRef::fits`] tells whether they belong to `source`.
    pub const fn from_parts(source: &'a str, head: &'a Head, properties: &'a [Property]) -> Self {
        PlanRef {
            source,
            head,
            properties,
            items: None,
        }
    }

    /// The schema text.
    pub const fn source(&self) -> &'a str {
        self.source
    }

    /// The head.
    pub const fn head(&self) -> &'a Head {
        self.head
    }

    /// The properties.
    pub const fn properties(&self) -> &'a [Property] {
        self.properties
    }

    /// Whether the head and properties were compiled from this plan's text and hold
    /// together: the text's length and hash, as many properties as the head says
    /// (at most [`MAX_PLAN_PROPERTIES`]), every span within the text, every required
    /// index a property. [`Server::new`](crate::Server::new) refuses a tool whose plan
    /// does not fit.
    pub fn fits(&self) -> bool {
        let h = self.head;
        let s = self.source.as_bytes();
        let len = s.len();
        let span_ok = |sp: &Span| sp.end == 0 || (sp.start <= sp.end && usize::from(sp.end) <= len);
        let count = usize::from(h.count);
        let required_ok = h.required_count == u8::MAX
            || h.required_props
                .get(..usize::from(h.required_count))
                .is_some_and(|r| r.iter().all(|&k| usize::from(k) < count));
        h.version == layout::VERSION
            && len == usize::from(h.len)
            && h.hash == fnv1a(s)
            && count == self.properties.len()
            && count <= MAX_PLAN_PROPERTIES
            && span_ok(&h.required)
            && required_ok
            && self
                .properties
                .iter()
                .all(|p| p.name.end != 0 && span_ok(&p.name) && p.keywords.iter().all(span_ok))
    }

    /// Whether the schema fitted the plan (otherwise [`PlanRef::validate`] walks the
    /// schema's text).
    pub const fn is_compiled(&self) -> bool {
        self.head.compiled != 0
    }

    /// [`Plan::validate`].
    ///
    /// # Errors
    ///
    /// The first violation: missing required arguments first, then the arguments in
    /// the order given.
    pub fn validate<'s>(self, args: Option<Value<'s>>) -> Result<(), Violation<'s, 's>>
    where
        'a: 's,
    {
        self.validate_filing(args, &mut None)
    }

    /// [`Plan::validate`], and the arguments filed by property into `filed` when the
    /// plan can answer lookups by name for them (see [`Filed`]); `filed` is `None`
    /// otherwise (and when the text was walked).
    pub(crate) fn validate_filing<'s>(
        self,
        args: Option<Value<'s>>,
        filed: &mut Option<Filed<'a, 's>>,
    ) -> Result<(), Violation<'s, 's>>
    where
        'a: 's,
    {
        if !self.is_compiled() {
            *filed = None;
            return super::walk(self.source, args);
        }
        // At most as many as `given` has bits for.
        let properties = self
            .properties
            .get(..MAX_PLAN_PROPERTIES)
            .unwrap_or(self.properties);
        // One walk over the arguments: which declared properties are given (and their
        // values, filed in place), the first argument given twice, the first that
        // breaks a rule.
        let values = &mut filed
            .insert(Filed {
                plan: self,
                values: [None; MAX_PLAN_PROPERTIES],
            })
            .values;
        let mut given = 0u32;
        // Keys as written are keys decoded while none has an escape (a declared name
        // has none: the plan was not compiled otherwise; the others are looked at).
        let mut plain = true;
        let mut duplicate = None;
        let mut broken = None;
        // No arguments: no members (an empty text has none).
        let mut members = args.unwrap_or(Value::exact(&[])).members();
        let mut i = 0;
        while let Some(key) = members.key() {
            // A name as written, else (spelled with an escape) decoded: `"\u0061"` is the
            // argument `a`, as `ToolCall::arg` reads it.
            let found = properties
                .iter()
                .position(|p| self.text(p.name).is_some_and(|n| same_bytes(n, key.raw())))
                .or_else(|| {
                    let decoded = |n: &[u8]| key.eq_bytes(n);
                    let named = |p: &Property| self.text(p.name).is_some_and(decoded);
                    key.has_escapes()
                        .then(|| properties.iter().position(named))?
                });
            // A value that starts with one of a plain `enum`'s strings is that string:
            // not scanned for its end, nor looked for in the `enum` again.
            let hit = found
                .and_then(|k| properties.get(k))
                .filter(|p| p.plain_enum != 0)
                .and_then(|p| self.enum_item_at(found?, p, members.ahead()));
            let value = match hit {
                Some(len) => members.value_as(len),
                None => members.value(),
            };
            let Some(value) = value else { break };
            let index = i;
            i += 1;
            let twice = match found {
                // A declared name: given before when its bit is set.
                Some(k) => {
                    let bit = 1u32 << k;
                    let twice = given & bit != 0;
                    if !twice {
                        given |= bit;
                        if let Some(slot) = values.get_mut(k) {
                            *slot = Some(value);
                        }
                    }
                    twice
                }
                // Another name: looked for among the members before it.
                None => {
                    plain = plain && !key.has_escapes();
                    args.is_some_and(|a| given_before(a, index, key))
                }
            };
            if duplicate.is_none() && twice {
                duplicate = Some(key);
            }
            if broken.is_some() || duplicate.is_some() {
                continue;
            }
            let rule = match found.and_then(|k| properties.get(k)) {
                Some(p) => self.check(p, value, hit.is_some()).err(),
                None => (self.head.closed != 0).then_some(Rule::Unknown),
            };
            broken = rule.map(|rule| Violation {
                argument: key,
                rule,
            });
        }
        // As `validate` answers: a missing required argument first, then one given
        // twice, then the first broken rule.
        let head = self.head;
        let missing = match head.required_props.get(..usize::from(head.required_count)) {
            Some(required) => required
                .iter()
                .find(|&&k| given & 1u32.checked_shl(k.into()).unwrap_or(0) == 0)
                .and_then(|&k| properties.get(usize::from(k)))
                .and_then(|p| self.name(p)),
            None => first_missing(self.value(head.required), args),
        };
        let checked = match (missing, duplicate) {
            (Some(name), _) => Err(Violation {
                argument: name,
                rule: Rule::Required,
            }),
            (None, Some(key)) => Err(Violation {
                argument: key,
                rule: Rule::Duplicate,
            }),
            (None, None) => broken.map_or(Ok(()), Err),
        };
        if checked.is_err() || !plain {
            *filed = None;
        }
        checked
    }

    /// The length of the string of `p`'s plain `enum` that `text` starts with, quotes
    /// included.
    #[inline(always)]
    fn enum_item_at(&self, k: usize, p: &Property, text: &[u8]) -> Option<usize> {
        let list = || self.value(p.keywords[1]);
        match self.items {
            Some(items) => form::enum_item_at(items, k, self.source.as_bytes(), list, text),
            None => plain_item_at(list()?.raw(), text),
        }
    }

    /// The index of the declared property whose name is written `name`.
    #[cfg_attr(not(emcp_fast), allow(dead_code))] // read through `Filed` on hosts
    fn property(&self, name: &[u8]) -> Option<usize> {
        self.properties
            .iter()
            .position(|p| self.text(p.name).is_some_and(|n| same_bytes(n, name)))
    }

    /// The name of `p` as a string (its span and the quotes around it).
    fn name(&self, p: &Property) -> Option<crate::wire::json::Str<'a>> {
        let quoted = usize::from(p.name.start).checked_sub(1)?..usize::from(p.name.end) + 1;
        Value::trusted(self.source.as_bytes().get(quoted)?).as_str()
    }

    /// Check `v` against property `p`, as [`check_property`](super::check_property)
    /// does with its keywords: `type` by the index found when compiling, `enum` of
    /// plain strings by their texts (not at all when the walk found `v` among them:
    /// `in_enum`).
    fn check(&self, p: &Property, v: Value<'_>, in_enum: bool) -> Result<(), Rule<'a>> {
        if in_enum && p.enum_settles != 0 {
            return Ok(());
        }
        let [ty, allowed, bounds @ ..] = &p.keywords;
        // An argument of at most nine digits against bounds of as few: as integers.
        let int = || match p.int_bounds != 0 {
            true => small_int(v.raw(), 0).filter(|_| !v.raw().is_empty()),
            false => None,
        };
        if let Some(t) = self.value(*ty) {
            let ok = match p.ty {
                ANY_TYPE => true,
                // A number, and integral.
                NUMBER | INTEGER if int().is_some() => true,
                // A name, or an array of names (an array is no name, a name has no items).
                TYPE_LIST => type_matches(t, v) || t.items().any(|n| type_matches(n, v)),
                i => is_type(usize::from(i), v),
            };
            if !ok {
                return Err(Rule::Type(t));
            }
        }
        if let Some(e) = self.value(*allowed).filter(|_| !in_enum) {
            // Not taken as one of a plain enum's strings by the walk (`plain_item_at`):
            // then only a string with escapes can still be equal to one.
            let ok = (p.plain_enum == 0 || v.as_str().is_some_and(|s| s.has_escapes()))
                && e.items().any(|allowed| json_eq(v, allowed));
            if !ok {
                return Err(Rule::Enum(e));
            }
        }
        if let Some(n) = int() {
            let [min, max, ..] = *bounds;
            return match n {
                // Below `i32::MIN` or above `i32::MAX` only when the bound is there.
                n if n < p.int_min => self.value(min).map_or(Ok(()), |b| Err(Rule::Minimum(b))),
                n if n > p.int_max => self.value(max).map_or(Ok(()), |b| Err(Rule::Maximum(b))),
                _ => Ok(()),
            };
        }
        if bounds.iter().all(|b| b.end == 0) {
            return Ok(());
        }
        let bounds: Bounds<'a> = bounds.map(|span| self.value(span));
        check_bounds(&bounds, v)
    }

    fn text(&self, span: Span) -> Option<&'a [u8]> {
        self.source
            .as_bytes()
            .get(usize::from(span.start)..usize::from(span.end))
    }

    fn value(&self, span: Span) -> Option<Value<'a>> {
        if span.end == 0 {
            return None;
        }
        self.text(span).map(Value::exact)
    }
}

/// The arguments of a call that passed a [`Plan`]'s check, filed by declared property,
/// so that a handler's lookup by name ([`ToolCall::arg`](crate::device::ToolCall::arg)) needs
/// no walk. Kept only when no argument's name is spelled with an escape: a name as
/// written is then its decoded name, and the value filed under a declared name is the
/// first (the only) argument of that name, as [`Value::get`] finds it.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(emcp_fast), allow(dead_code))] // read on hosts
pub(crate) struct Filed<'p, 's> {
    plan: PlanRef<'p>,
    values: [Option<Value<'s>>; MAX_PLAN_PROPERTIES],
}

impl<'s> Filed<'_, 's> {
    /// The argument named `name`, as [`Value::get`] finds it in the arguments; `None`
    /// when `name` is not a declared property (the arguments are then walked).
    #[cfg_attr(not(emcp_fast), allow(dead_code))] // on small targets the arguments are walked
    pub(crate) fn get(&self, name: &str) -> Option<Option<Value<'s>>> {
        let k = self.plan.property(name.as_bytes())?;
        Some(self.values.get(k).copied().flatten())
    }
}

/// A property's bounds, as values.
type Bounds<'s> = [Option<Value<'s>>; PROPERTY_KEYS.len() - 2];

/// The length of the first string of `list` (the text of an array of strings without
/// escapes) that `text` starts with, quotes included.
fn plain_item_at(list: &[u8], text: &[u8]) -> Option<usize> {
    // No backslash in `list`: the quotes are found a word at a time.
    let find_quote = crate::wire::json::find_quote_or_backslash;
    let mut rest = list;
    loop {
        let item = rest.get(find_quote(rest)?..)?;
        // The item with both its quotes.
        let len = find_quote(item.get(1..)?)? + 2;
        let quoted = item.get(..len)?;
        if text.get(..len).is_some_and(|head| same_bytes(head, quoted)) {
            return Some(len);
        }
        rest = item.get(len..)?;
    }
}

/// The integer `text` is when it is one of at most nine digits, `-` allowed first
/// (`i32` holds it); `absent` for no text.
const fn small_int(text: &[u8], absent: i32) -> Option<i32> {
    let (negative, digits) = match text {
        [] => return Some(absent),
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    let mut n: i32 = 0;
    let mut k = 0;
    while k < digits.len() {
        let d = byte(digits, k).wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        // At most nine digits: below 10^9, no overflow.
        n = n * 10 + d as i32;
        k += 1;
    }
    Some(if negative { -n } else { n })
}

/// [`Property::ty`] of the `type` value at `span`.
const fn type_code(s: &[u8], span: Span) -> u8 {
    let (start, end) = span.range();
    if end == 0 {
        return ANY_TYPE;
    }
    if byte(s, start) != b'"' {
        return TYPE_LIST;
    }
    let mut i = 0;
    while i < TYPE_NAMES.len() {
        // A name spelled with an escape is no name of the list (as `type_matches`
        // compares them): anything goes.
        if let Some((_, [name, ..])) = TYPE_NAMES.split_at_checked(i) {
            if eq_at(s, (start + 1, end - 1), name.as_bytes()) {
                return i as u8;
            }
        }
        i += 1;
    }
    ANY_TYPE
}

/// Whether the value at `span` is an array of strings without escapes.
const fn plain_strings(s: &[u8], span: Span) -> bool {
    let (start, end) = span.range();
    if end == 0 || byte(s, start) != b'[' {
        return false;
    }
    let mut i = skip_ws(s, start + 1);
    if byte(s, i) == b']' {
        return true;
    }
    loop {
        match string_end(s, i) {
            Some((after, false)) => i = skip_ws(s, after),
            _ => return false,
        }
        match byte(s, i) {
            b']' => return true,
            b',' => i = skip_ws(s, i + 1),
            _ => return false,
        }
    }
}

/// File the members of the object at `at` named by `names` into `found` (their values;
/// the first of each name); false when a member name is spelled with an escape (found
/// by its decoded name: left to the walk over the text). A value that is not an
/// object has no members.
const fn file_keys(s: &[u8], at: usize, names: &[&str], found: &mut [Span]) -> bool {
    if byte(s, at) != b'{' {
        return true;
    }
    let mut i = at + 1;
    loop {
        match member(s, i) {
            Step::End => return true,
            Step::Bad => return false,
            Step::Member {
                key,
                escaped,
                value,
                next,
            } => {
                if escaped {
                    return false;
                }
                let mut k = 0;
                while k < names.len() {
                    if let Some((_, [name, ..])) = names.split_at_checked(k) {
                        if eq_at(s, key, name.as_bytes()) {
                            if let Some((_, [slot, ..])) = found.split_at_mut_checked(k) {
                                if slot.end == 0 {
                                    *slot = Span::new(value.0, value.1);
                                }
                            }
                        }
                    }
                    k += 1;
                }
                i = next;
            }
        }
    }
}

/// One step of a walk over an object's members.
enum Step {
    /// A member: its key's content, whether the key has an escape, its value, and
    /// where the next step starts.
    Member {
        key: (usize, usize),
        escaped: bool,
        value: (usize, usize),
        next: usize,
    },
    /// The object ends.
    End,
    /// Not JSON as expected.
    Bad,
}

/// The member at `i` (just after the object's `{` or a member's `,`; whitespace
/// allowed) of an object in `s`.
const fn member(s: &[u8], i: usize) -> Step {
    let i = skip_ws(s, i);
    if byte(s, i) == b'}' {
        return Step::End;
    }
    let Some((key_end, escaped)) = string_end(s, i) else {
        return Step::Bad;
    };
    let colon = skip_ws(s, key_end);
    if byte(s, colon) != b':' {
        return Step::Bad;
    }
    let start = skip_ws(s, colon + 1);
    let Some(end) = value_end(s, start) else {
        return Step::Bad;
    };
    let after = skip_ws(s, end);
    let next = match byte(s, after) {
        b',' => after + 1,
        b'}' => after,
        _ => return Step::Bad,
    };
    Step::Member {
        key: (i + 1, key_end - 1),
        escaped,
        value: (start, end),
        next,
    }
}

/// The string whose opening quote is at `i`: the index after its closing quote, and
/// whether it has an escape.
const fn string_end(s: &[u8], i: usize) -> Option<(usize, bool)> {
    if byte(s, i) != b'"' {
        return None;
    }
    let mut j = i + 1;
    let mut escaped = false;
    while j < s.len() {
        match byte(s, j) {
            b'\\' => {
                escaped = true;
                j += 2;
            }
            b'"' => return Some((j + 1, escaped)),
            _ => j += 1,
        }
    }
    None
}

/// The end of the value at `i`: strings to their closing quote, containers by
/// counting brackets outside strings, numbers and literals to the next delimiter.
const fn value_end(s: &[u8], i: usize) -> Option<usize> {
    match byte(s, i) {
        b'"' => match string_end(s, i) {
            Some((end, _)) => Some(end),
            None => None,
        },
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < s.len() {
                match byte(s, j) {
                    b'"' => match string_end(s, j) {
                        Some((end, _)) => {
                            j = end;
                            continue;
                        }
                        None => return None,
                    },
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        0 | b',' | b'}' | b']' | b':' => None,
        _ => {
            let mut j = i;
            while j < s.len()
                && !matches!(
                    byte(s, j),
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                )
            {
                j += 1;
            }
            Some(j)
        }
    }
}

/// `s[span]`; empty when the span is not within `s`.
const fn slice(s: &[u8], span: (usize, usize)) -> &[u8] {
    match s.split_at_checked(span.1) {
        Some((head, _)) => match head.split_at_checked(span.0) {
            Some((_, part)) => part,
            None => &[],
        },
        None => &[],
    }
}

/// Whether `s[span]` is `lit`.
const fn eq_at(s: &[u8], span: (usize, usize), lit: &[u8]) -> bool {
    if span.1 < span.0 || span.1 - span.0 != lit.len() {
        return false;
    }
    let mut k = 0;
    while k < lit.len() {
        if byte(s, span.0 + k) != byte(lit, k) {
            return false;
        }
        k += 1;
    }
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests;
