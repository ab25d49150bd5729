extern crate std;

use super::*;

#[test]
fn fits_and_falls_back() {
    let led = r#"{ "type": "object", "properties": { "color": { "type": "string", "enum": ["off", "red"] },
        "brightness": { "type": "integer", "minimum": 0, "maximum": 100 } },
        "required": ["color"], "additionalProperties": false }"#;
    let plan = Plan::compile(led);
    assert!(plan.is_compiled());
    assert_eq!(plan.head.count, 2);
    assert_eq!(plan.head.closed, 1);
    let r = plan.as_ref();
    assert_eq!(r.text(plan.properties[1].name), Some(&b"brightness"[..]));
    assert_eq!(
        r.value(plan.properties[1].keywords[3]).map(|v| v.raw()),
        Some(&b"100"[..])
    );
    assert_eq!(
        r.value(plan.head.required).map(|v| v.raw()),
        Some(&br#"["color"]"#[..])
    );

    // An escaped keyword, too many properties, not an object: the text is walked.
    assert!(!Plan::compile(r#"{"propert\u0069es":{}}"#).is_compiled());
    assert!(!Plan::compile(r#"{"properties":{"a":{"m\u0061ximum":1}}}"#).is_compiled());
    let many = r#"{"properties":{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{}}}"#;
    assert!(!Plan::compile(many).is_compiled());
    assert!(!Plan::compile("[]").is_compiled());
    // An escaped property name or required name: the text is walked (names compare
    // decoded, a plan's as written).
    assert!(!Plan::compile(r#"{"properties":{"\u0061":{}}}"#).is_compiled());
    let required = Plan::compile(r#"{"properties":{"a":{}},"required":["\u0061"]}"#);
    assert!(required.is_compiled());
    let args = |t: &'static str| crate::wire::json::parse(t.as_bytes()).unwrap();
    assert!(required.validate(Some(args(r#"{"a":1}"#))).is_ok());
    assert!(required.validate(Some(args(r#"{"\u0061":1}"#))).is_ok());
    assert!(required.validate(Some(args(r#"{"b":1}"#))).is_err());
    assert!(Plan::compile("{}").is_compiled());
}

/// What the filed arguments answer is what a walk over them answers (`Value::get`),
/// or nothing (the walk is then done): escaped names, undeclared ones, absent ones.
#[test]
fn filed_arguments_answer_as_the_walk() {
    let schemas = [
        r#"{"properties":{"a":{"type":"integer"},"bc":{},"d":{}}}"#,
        r#"{"properties":{"a":{},"bc":{"enum":["x","y"]}},"additionalProperties":false}"#,
    ];
    let args = [
        r#"{"a":1,"bc":"x"}"#,
        r#"{"bc":"y"}"#,
        r#"{"\u0061":2,"a":1}"#,
        r#"{"a":1,"\u0062c":"x"}"#,
        r#"{"\u0064":3,"a":4}"#,
        r#"{"d":3}"#,
        r#"{"e":1,"a":2}"#,
        "{}",
    ];
    for schema in schemas {
        let plan = Plan::compile(schema);
        assert!(plan.is_compiled());
        for text in args {
            let a = crate::wire::json::parse(text.as_bytes()).unwrap();
            let mut filed = None;
            let ok = plan.as_ref().validate_filing(Some(a), &mut filed).is_ok();
            assert_eq!(ok, plan.validate(Some(a)).is_ok(), "{schema} {text}");
            let Some(filed) = filed else { continue };
            assert!(ok);
            for name in ["a", "bc", "d", "\\u0064", "\\u0061", "e", ""] {
                if let Some(v) = filed.get(name) {
                    let walked = a.get(name).map(|v| v.raw());
                    assert_eq!(v.map(|v| v.raw()), walked, "{schema} {text} {name}");
                }
            }
        }
    }
}

/// A plain `enum`'s strings are filed while they fit; past that its text is looked
/// through: the same answers either way.
#[test]
fn enum_strings_filed_or_not() {
    let few = r#"{"properties":{"a":{"enum":[ "x" , "yz" ]},"b":{"enum":[]}}}"#;
    let many = std::format!(
        r#"{{"properties":{{"b":{{"enum":[]}},"a":{{"enum":[{}"x","yz"]}}}}}}"#,
        r#""q","#.repeat(30)
    );
    let plans = [Plan::compile(few), Plan::compile(&many)];
    assert_eq!(fast_items(&plans[0]).1, [(0, 2), (2, 0)]);
    assert_eq!(fast_items(&plans[1]).1, [(0, 0), fast::NO_RANGE]);
    for plan in &plans {
        assert!(plan.is_compiled());
        for (text, ok) in [
            (r#"{"a":"x"}"#, true),
            (r#"{"a":"yz"}"#, true),
            (r#"{"a":"y"}"#, false),
            (r#"{"a":"\u0078"}"#, true),
            (r#"{"a":"xy"}"#, false),
            (r#"{"b":"x"}"#, false),
        ] {
            let a = crate::wire::json::parse(text.as_bytes()).unwrap();
            assert_eq!(plan.validate(Some(a)).is_ok(), ok, "{text}");
        }
    }
}

/// The type codes named here are those of the names.
#[test]
fn type_codes() {
    assert_eq!(TYPE_NAMES[usize::from(NUMBER)], "number");
    assert_eq!(TYPE_NAMES[usize::from(INTEGER)], "integer");
    assert_eq!(small_int(b"-999999999", 0), Some(-999_999_999));
    assert_eq!(small_int(b"1000000000", 0), None);
    assert_eq!(small_int(b"1.0", 0), None);
    assert_eq!(small_int(b"-", 0), None);
    assert_eq!(small_int(b"", 7), Some(7));
}

/// Compiled at compile time (a `static`), and used.
#[test]
fn in_a_static() {
    static PLAN: Plan<'static> =
        Plan::compile(r#"{"properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}"#);
    assert!(PLAN.is_compiled());
    let args = crate::wire::json::parse(br#"{"n":4}"#).unwrap();
    let v = PLAN.validate(Some(args)).unwrap_err();
    assert!(matches!(v.rule, super::super::Rule::Maximum(b) if b.raw() == b"3"));
    assert!(PLAN.validate(None).is_err());
}

/// The fast form's filing of `plan`'s plain `enum`s (what `Plan::compile` files on
/// hosts), on any target: the table and each declared property's range.
fn fast_items(plan: &Plan<'_>) -> (fast::Items, std::vec::Vec<fast::ItemRange>) {
    let s = plan.source.as_bytes();
    let mut items = fast::Items::NONE;
    for (k, p) in plan.properties().iter().enumerate() {
        if p.plain_enum != 0 {
            items.file(k, s, p.keywords[1]);
        }
    }
    let ranges = items.ranges[..plan.properties().len()].to_vec();
    (items, ranges)
}

/// Both forms of `enum_item_at` on every plain `enum` of `schema`, for texts that
/// start with each of its strings, with a prefix or an extension of one, or with
/// other text.
fn enum_forms_agree(schema: &str) {
    let plan = Plan::compile(schema);
    let (items, ranges) = fast_items(&plan);
    let s = plan.source.as_bytes();
    assert_eq!(ranges.len(), plan.properties().len());
    for (k, p) in plan.properties().iter().enumerate() {
        if p.plain_enum == 0 {
            continue;
        }
        let list = plan.as_ref().value(p.keywords[1]);
        let mut texts: std::vec::Vec<std::vec::Vec<u8>> = std::vec![
            b"".to_vec(),
            b"\"".to_vec(),
            b"1,".to_vec(),
            b"\"zz\"}".to_vec()
        ];
        for item in list.unwrap().items() {
            let quoted = item.raw();
            texts.push(quoted.to_vec());
            texts.push([quoted, b",\"b\":1}"].concat());
            texts.push([&quoted[..quoted.len() - 1], b"x\"}"].concat());
            texts.push(quoted[..quoted.len() - 1].to_vec());
        }
        for text in &texts {
            let fast = fast::enum_item_at(&items, k, s, || list, text);
            let plain = plain::enum_item_at(&plain::Items, k, s, || list, text);
            assert_eq!(
                fast,
                plain,
                "{schema} {}",
                std::string::String::from_utf8_lossy(text)
            );
        }
    }
}

#[test]
fn enum_item_at_forms_agree() {
    let many = std::format!(
        r#"{{"properties":{{"b":{{"enum":[]}},"a":{{"enum":[{}"x","yz"]}}}}}}"#,
        r#""q","#.repeat(30)
    );
    for schema in [
        r#"{"properties":{"a":{"enum":[ "x" , "yz" ]},"b":{"enum":[]}}}"#,
        r#"{"properties":{"mode":{"type":"string","enum":["on","off","auto","o"]}}}"#,
        r#"{"properties":{"a":{"enum":["","a","ab","abc","abcd","abcdefgh","abcdefghijklmnopq"]}}}"#,
        r#"{"properties":{"a":{"enum":["x"]},"b":{"enum":["x","y"]},"c":{"enum":["é","\/"]}}}"#,
        many.as_str(),
    ] {
        enum_forms_agree(schema);
    }
}

proptest::proptest! {
    #[test]
    fn enum_item_at_forms_agree_on_any_strings(
        enums in proptest::collection::vec(
            proptest::collection::vec("[a-c\u{e9} ]{0,10}", 0..10),
            1..5,
        )
    ) {
        let mut schema = std::string::String::from(r#"{"properties":{"#);
        for (k, strings) in enums.iter().enumerate() {
            let list: std::vec::Vec<_> = strings.iter().map(|s| std::format!("\"{s}\"")).collect();
            if k > 0 {
                schema.push(',');
            }
            schema += &std::format!(r#""p{k}":{{"enum":[{}]}}"#, list.join(","));
        }
        schema.push_str("}}");
        enum_forms_agree(&schema);
    }
}
