//! A deliberately simple, obviously-correct reference implementation of
//! `contractpin-canonical-json/1` (SPEC.md sections 2-6), used as the oracle
//! of the differential property tests (`tests/properties.rs`) and fuzz
//! targets (`fuzz/`). ONE copy: both include this file with `#[path]`.
//!
//! It shares no code with the library and optimises nothing:
//!
//! - a recursive-descent parser into an owned tree (`String`, `Vec`, `f64`),
//!   validating UTF-8 with `std::str::from_utf8` and reading numbers with
//!   `str::parse::<f64>` (correctly rounded, ties to even);
//! - numbers written from Rust's shortest round-trip digits (`{:e}`) laid out
//!   with the ECMAScript `Number::toString` rules exactly as SPEC.md 3.6
//!   states them;
//! - object members sorted with `str::encode_utf16` (UTF-16 code units);
//! - string escaping written out case by case from SPEC.md 3.5.
//!
//! Errors are reported by kind only (the stable kebab-case names of SPEC.md
//! section 10), detected in input order; offsets are not modelled.
//!
//! The recursion depth is bounded by the depth limit given to [`parse`].
#![allow(dead_code)]

use std::collections::BTreeSet;

/// A parsed JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum RefValue {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// Any number, as the nearest IEEE-754 double.
    Number(f64),
    /// A decoded string.
    String(String),
    /// An array.
    Array(Vec<RefValue>),
    /// An object, members in document order (keys are unique).
    Object(Vec<(String, RefValue)>),
}

impl RefValue {
    /// The member `key` of an object (`None` for other values).
    pub fn get(&self, key: &str) -> Option<&RefValue> {
        match self {
            RefValue::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Why the reference rejected an input: the stable kind name of SPEC.md 10.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefError(pub &'static str);

const UNEXPECTED_END: RefError = RefError("unexpected-end");
const UNEXPECTED_BYTE: RefError = RefError("unexpected-byte");
const INVALID_UTF8: RefError = RefError("invalid-utf8");
const BYTE_ORDER_MARK: RefError = RefError("byte-order-mark");
const CONTROL_CHARACTER: RefError = RefError("control-character");
const INVALID_ESCAPE: RefError = RefError("invalid-escape");
const LONE_SURROGATE: RefError = RefError("lone-surrogate");
const INVALID_NUMBER: RefError = RefError("invalid-number");
const NUMBER_OUT_OF_RANGE: RefError = RefError("number-out-of-range");
const DUPLICATE_KEY: RefError = RefError("duplicate-key");
const DEPTH_LIMIT: RefError = RefError("depth-limit");
const SIZE_LIMIT: RefError = RefError("size-limit");
const TRAILING_DATA: RefError = RefError("trailing-data");
const NOT_TOOLS_LIST: RefError = RefError("not-tools-list");
const TOOL_NOT_OBJECT: RefError = RefError("tool-not-object");
const NAME_NOT_STRING: RefError = RefError("name-not-string");
const DUPLICATE_TOOL_NAME: RefError = RefError("duplicate-tool-name");
const JSON_RPC_ERROR: RefError = RefError("json-rpc-error");
const TOOL_LIMIT: RefError = RefError("tool-limit");
const CASE_VARIANT_KEY: RefError = RefError("case-variant-key");

/// The reference's limits (same meaning and defaults as `contractpin::Limits`).
#[derive(Clone, Copy, Debug)]
pub struct RefLimits {
    /// Deepest nesting; the top-level container has depth 1.
    pub max_depth: usize,
    /// Longest input in bytes.
    pub max_input: usize,
    /// Most tools in one tools/list.
    pub max_tools: usize,
}

impl Default for RefLimits {
    fn default() -> Self {
        RefLimits {
            max_depth: 256,
            max_input: 64 << 20,
            max_tools: 100_000,
        }
    }
}

// ------------------------------------------------------------------ parser

/// Parses one JSON document under SPEC.md section 4's rules.
pub fn parse(input: &[u8], limits: &RefLimits) -> Result<RefValue, RefError> {
    if input.len() > limits.max_input {
        return Err(SIZE_LIMIT);
    }
    if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(BYTE_ORDER_MARK);
    }
    let mut p = Parser {
        s: input,
        i: 0,
        max_depth: limits.max_depth,
    };
    let v = p.value(0)?;
    p.skip_ws();
    if p.i < input.len() {
        return Err(TRAILING_DATA);
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    max_depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// A value; `depth` is the number of containers around it.
    fn value(&mut self, depth: usize) -> Result<RefValue, RefError> {
        self.skip_ws();
        match self.peek() {
            None => Err(UNEXPECTED_END),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(RefValue::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", RefValue::Bool(true)),
            Some(b'f') => self.literal("false", RefValue::Bool(false)),
            Some(b'n') => self.literal("null", RefValue::Null),
            Some(_) => Err(UNEXPECTED_BYTE),
        }
    }

    fn literal(&mut self, word: &str, v: RefValue) -> Result<RefValue, RefError> {
        for &w in word.as_bytes() {
            match self.peek() {
                None => return Err(UNEXPECTED_END),
                Some(c) if c != w => return Err(UNEXPECTED_BYTE),
                Some(_) => self.i += 1,
            }
        }
        Ok(v)
    }

    fn object(&mut self, depth: usize) -> Result<RefValue, RefError> {
        if depth + 1 > self.max_depth {
            return Err(DEPTH_LIMIT);
        }
        self.i += 1; // {
        let mut members: Vec<(String, RefValue)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(RefValue::Object(members));
        }
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(UNEXPECTED_END),
                Some(b'"') => {}
                Some(_) => return Err(UNEXPECTED_BYTE),
            }
            let key = self.string()?;
            self.skip_ws();
            match self.peek() {
                None => return Err(UNEXPECTED_END),
                Some(b':') => self.i += 1,
                Some(_) => return Err(UNEXPECTED_BYTE),
            }
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                None => return Err(UNEXPECTED_END),
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    break;
                }
                Some(_) => return Err(UNEXPECTED_BYTE),
            }
        }
        // Duplicates are found when the object is complete (any depth).
        let mut seen = BTreeSet::new();
        if !members.iter().all(|(k, _)| seen.insert(k.as_str())) {
            return Err(DUPLICATE_KEY);
        }
        Ok(RefValue::Object(members))
    }

    fn array(&mut self, depth: usize) -> Result<RefValue, RefError> {
        if depth + 1 > self.max_depth {
            return Err(DEPTH_LIMIT);
        }
        self.i += 1; // [
        let mut elements = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(RefValue::Array(elements));
        }
        loop {
            elements.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                None => return Err(UNEXPECTED_END),
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    break;
                }
                Some(_) => return Err(UNEXPECTED_BYTE),
            }
        }
        Ok(RefValue::Array(elements))
    }

    /// A string token starting at its opening quote; returns the decoded text.
    fn string(&mut self) -> Result<String, RefError> {
        self.i += 1; // "
        let mut out = String::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(UNEXPECTED_END);
            };
            match b {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => out.push(self.escape()?),
                0x00..=0x1F => return Err(CONTROL_CHARACTER),
                0x20..=0x7F => {
                    out.push(b as char);
                    self.i += 1;
                }
                _ => {
                    // Let the standard library judge one UTF-8 sequence.
                    let end = (self.i + 4).min(self.s.len());
                    let chunk = &self.s[self.i..end];
                    let valid = match std::str::from_utf8(chunk) {
                        Ok(text) => text,
                        Err(e) if e.valid_up_to() > 0 => {
                            std::str::from_utf8(&chunk[..e.valid_up_to()]).unwrap()
                        }
                        Err(_) => return Err(INVALID_UTF8),
                    };
                    let c = valid.chars().next().unwrap();
                    out.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    /// Four hex digits at `at`.
    fn hex4(&self, at: usize) -> Result<u32, RefError> {
        let mut v = 0u32;
        for k in 0..4 {
            let Some(c) = self.s.get(at + k) else {
                return Err(UNEXPECTED_END);
            };
            let Some(d) = (*c as char).to_digit(16) else {
                return Err(INVALID_ESCAPE);
            };
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// An escape starting at its backslash.
    fn escape(&mut self) -> Result<char, RefError> {
        let Some(e) = self.s.get(self.i + 1).copied() else {
            return Err(UNEXPECTED_END);
        };
        let simple = match e {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'u' => None,
            _ => return Err(INVALID_ESCAPE),
        };
        if let Some(c) = simple {
            self.i += 2;
            return Ok(c);
        }
        let unit = self.hex4(self.i + 2)?;
        self.i += 6;
        if (0xDC00..0xE000).contains(&unit) {
            return Err(LONE_SURROGATE);
        }
        if !(0xD800..0xDC00).contains(&unit) {
            return Ok(char::from_u32(unit).unwrap());
        }
        // A high surrogate: an escaped low surrogate must follow at once.
        match (self.s.get(self.i), self.s.get(self.i + 1)) {
            (Some(b'\\'), Some(b'u')) => {}
            (None, _) | (Some(b'\\'), None) => return Err(UNEXPECTED_END),
            _ => return Err(LONE_SURROGATE),
        }
        let low = self.hex4(self.i + 2)?;
        if !(0xDC00..0xE000).contains(&low) {
            return Err(LONE_SURROGATE);
        }
        self.i += 6;
        Ok(char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)).unwrap())
    }

    /// A number token: the maximal run of `0-9 + - . e E`, which must be
    /// RFC 8259 number grammar.
    fn number(&mut self) -> Result<RefValue, RefError> {
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')
        ) {
            self.i += 1;
        }
        let token = &self.s[start..self.i];
        if !is_rfc8259_number(token) {
            return Err(INVALID_NUMBER);
        }
        let value: f64 = std::str::from_utf8(token).unwrap().parse().unwrap();
        if value.is_infinite() {
            return Err(NUMBER_OUT_OF_RANGE);
        }
        Ok(RefValue::Number(value))
    }
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, whole token.
pub fn is_rfc8259_number(t: &[u8]) -> bool {
    let digit = |i: usize| t.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    if t.first() == Some(&b'-') {
        i += 1;
    }
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while digit(i) {
                i += 1;
            }
        }
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        let s = i;
        while digit(i) {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        while digit(i) {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == t.len()
}

// ------------------------------------------------------------------ writer

/// Canonical bytes of a parsed value (SPEC.md section 3).
pub fn write(v: &RefValue) -> String {
    let mut out = String::new();
    write_into(v, &mut out);
    out
}

fn write_into(v: &RefValue, out: &mut String) {
    match v {
        RefValue::Null => out.push_str("null"),
        RefValue::Bool(true) => out.push_str("true"),
        RefValue::Bool(false) => out.push_str("false"),
        RefValue::Number(x) => out.push_str(&es_number(*x).expect("finite")),
        RefValue::String(s) => write_string(s, out),
        RefValue::Array(a) => {
            out.push('[');
            for (k, e) in a.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_into(e, out);
            }
            out.push(']');
        }
        RefValue::Object(m) => {
            let mut sorted: Vec<&(String, RefValue)> = m.iter().collect();
            sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (k, (key, value)) in sorted.into_iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_into(value, out);
            }
            out.push('}');
        }
    }
}

/// A string as RFC 8785 writes it (SPEC.md 3.5).
pub fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// ECMAScript `Number::toString` (SPEC.md 3.6), from Rust's shortest
/// round-trip digits. `None` for NaN and the infinities.
pub fn es_number(x: f64) -> Option<String> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        return Some("0".to_string()); // also -0
    }
    let (s, exp) = shortest_digits(x.abs());
    let k = s.len() as i32;
    let n = exp + 1; // value = s × 10^(n − k)
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&s);
        out.push_str(&"0".repeat((n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&s[..n as usize]);
        out.push('.');
        out.push_str(&s[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-n) as usize));
        out.push_str(&s);
    } else {
        out.push_str(&s[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&s[1..]);
        }
        out.push('e');
        out.push(if n >= 1 { '+' } else { '-' }); // the sign of n - 1
        out.push_str(&(n - 1).abs().to_string());
    }
    Some(out)
}

/// Scientific notation split into its digits and decimal exponent:
/// "1.25e-7" -> ("125", -7).
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let digits = mantissa.chars().filter(|c| *c != '.').collect();
    (digits, exp.parse().unwrap())
}

/// The shortest digits `s` of a positive finite `x` and the exponent of its
/// first digit, as SPEC.md 3.6 defines them: `k` as small as possible, and of
/// those the closest to `x`, ties to the even one.
fn shortest_digits(x: f64) -> (String, i32) {
    // `{:e}` gives the shortest digits that read back as `x`, the closest
    // ones except on an exact tie, which it rounds up.
    let (s, exp) = split_sci(&format!("{x:e}"));
    // An exact tie: `x` lies halfway between two k-digit candidates, that is
    // its exact decimal expansion (`{:.1100e}` prints every digit of any
    // double) has k + 1 significant digits ending in 5. Then ECMAScript
    // takes the even candidate, if it reads back as `x`.
    let (exact, exact_exp) = split_sci(&format!("{x:.1100e}"));
    let exact = exact.trim_end_matches('0');
    if exact.len() == s.len() + 1 && exact.ends_with('5') {
        let low = &exact[..s.len()];
        let even = (low.as_bytes()[low.len() - 1] - b'0').is_multiple_of(2);
        let reads_back = format!("{}.{}e{exact_exp}", &low[..1], &low[1..])
            .parse::<f64>()
            .is_ok_and(|v| v == x);
        if even && reads_back {
            return (low.trim_end_matches('0').to_string(), exact_exp);
        }
    }
    (s, exp)
}

/// Parse then write: the reference canonicalizer.
pub fn canonicalize(input: &[u8], limits: &RefLimits) -> Result<String, RefError> {
    parse(input, limits).map(|v| write(&v))
}

// ------------------------------------------------------------------ contracts

/// The contract names in canonical order with their canonical value text.
pub type RefFields = Vec<(&'static str, String)>;

/// The members read in a JSON-RPC message, a page and a tool (SPEC.md
/// section 6: no key may be one of them only under case folding).
const MESSAGE_MEMBERS: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
const PAGE_MEMBERS: [&str; 4] = ["tools", "result", "error", "nextCursor"];
const TOOL_MEMBERS: [&str; 5] = [
    "annotations",
    "description",
    "inputSchema",
    "name",
    "outputSchema",
];

/// `key` with ASCII letters lowercased and ſ, K, ı, İ as s, k, i, i;
/// `None` when another non-ASCII character is in it.
fn folded(key: &str) -> Option<String> {
    key.chars()
        .map(|c| match c {
            '\u{17f}' => Some('s'),
            '\u{212a}' => Some('k'),
            '\u{130}' | '\u{131}' => Some('i'),
            c if c.is_ascii() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// `case-variant-key` when a key of `obj` is one of `names` only under case
/// folding.
fn no_variant(obj: &RefValue, names: &[&str]) -> Result<(), RefError> {
    let RefValue::Object(members) = obj else {
        return Ok(());
    };
    for (key, _) in members {
        let f = folded(key);
        if names
            .iter()
            .any(|n| f.as_deref() == Some(n.to_ascii_lowercase().as_str()) && key != n)
        {
            return Err(CASE_VARIANT_KEY);
        }
    }
    Ok(())
}

/// The contract object of one tool (SPEC.md section 2).
pub fn contract(tool: &RefValue) -> Result<RefValue, RefError> {
    let RefValue::Object(_) = tool else {
        return Err(TOOL_NOT_OBJECT);
    };
    let mut c = Vec::new();
    match tool.get("name") {
        Some(RefValue::String(s)) => c.push(("name".to_string(), RefValue::String(s.clone()))),
        _ => return Err(NAME_NOT_STRING),
    }
    no_variant(tool, &TOOL_MEMBERS)?;
    for required in ["description", "inputSchema"] {
        let v = tool.get(required).cloned().unwrap_or(RefValue::Null);
        c.push((required.to_string(), v));
    }
    for optional in ["outputSchema", "annotations"] {
        match tool.get(optional) {
            None | Some(RefValue::Null) => {}
            Some(v) => c.push((optional.to_string(), v.clone())),
        }
    }
    Ok(RefValue::Object(c))
}

/// Canonical text of each member of a contract, in canonical key order.
pub fn contract_fields(contract: &RefValue) -> RefFields {
    let mut fields: RefFields = Vec::new();
    for name in [
        "annotations",
        "description",
        "inputSchema",
        "name",
        "outputSchema",
    ] {
        if let Some(v) = contract.get(name) {
            fields.push((name, write(v)));
        }
    }
    fields
}

/// Calls `each` for every tool of a tools/list in any SPEC.md section 6
/// shape, in document order, page by page (so an error in an early page is
/// found before anything in a later one).
pub fn for_each_tool<'a>(
    doc: &'a RefValue,
    mut each: impl FnMut(&'a RefValue) -> Result<(), RefError>,
) -> Result<(), RefError> {
    fn page(p: &RefValue) -> Result<&Vec<RefValue>, RefError> {
        let RefValue::Object(_) = p else {
            return Err(NOT_TOOLS_LIST);
        };
        no_variant(p, &PAGE_MEMBERS)?;
        no_variant(p, &MESSAGE_MEMBERS)?;
        if p.get("error").is_some() {
            return Err(JSON_RPC_ERROR);
        }
        let result = match p.get("result") {
            // `tools` beside `result`: neither list is taken (SPEC.md section 6).
            Some(_) if p.get("tools").is_some() => return Err(NOT_TOOLS_LIST),
            Some(r @ RefValue::Object(_)) => r,
            Some(_) => return Err(NOT_TOOLS_LIST),
            None => p,
        };
        no_variant(result, &PAGE_MEMBERS)?;
        match result.get("tools") {
            Some(RefValue::Array(tools)) => Ok(tools),
            _ => Err(NOT_TOOLS_LIST),
        }
    }
    fn is_page(v: &RefValue) -> bool {
        matches!(v, RefValue::Object(_))
            && v.get("name").is_none()
            && ["tools", "result", "error"]
                .iter()
                .any(|k| v.get(k).is_some())
    }
    match doc {
        RefValue::Object(_) => page(doc)?.iter().try_for_each(each),
        RefValue::Array(items) if !items.is_empty() && is_page(&items[0]) => {
            for p in items {
                page(p)?.iter().try_for_each(&mut each)?;
            }
            Ok(())
        }
        RefValue::Array(items) => items.iter().try_for_each(each),
        _ => Err(NOT_TOOLS_LIST),
    }
}

/// One tool of a reference tools/list digest.
#[derive(Clone, Debug, PartialEq)]
pub struct RefTool {
    /// The decoded name.
    pub name: String,
    /// Canonical contract text.
    pub contract: String,
    /// `sha256:<hex>` of the contract.
    pub digest: String,
    /// Field name and `sha256:<hex>` of its canonical value, canonical order.
    pub fields: Vec<(&'static str, String)>,
}

/// The reference server digest of a tools/list: (`{name: digest}` canonical
/// text, its digest, tools in UTF-16 name order). `sha256` is the hash to use.
pub fn tools_list(
    input: &[u8],
    limits: &RefLimits,
    sha256: fn(&[u8]) -> [u8; 32],
) -> Result<(String, String, Vec<RefTool>), RefError> {
    let doc = parse(input, limits)?;
    let hex = |bytes: &[u8]| -> String {
        let mut s = String::from("sha256:");
        for b in sha256(bytes) {
            s.push_str(&format!("{b:02x}"));
        }
        s
    };
    let mut out: Vec<RefTool> = Vec::new();
    for_each_tool(&doc, |tool| {
        let RefValue::Object(_) = tool else {
            return Err(TOOL_NOT_OBJECT);
        };
        let Some(RefValue::String(name)) = tool.get("name") else {
            return Err(NAME_NOT_STRING);
        };
        no_variant(tool, &TOOL_MEMBERS)?;
        if out.len() >= limits.max_tools {
            return Err(TOOL_LIMIT);
        }
        let c = contract(tool)?;
        let text = write(&c);
        out.push(RefTool {
            name: name.clone(),
            digest: hex(text.as_bytes()),
            fields: contract_fields(&c)
                .into_iter()
                .map(|(f, t)| (f, hex(t.as_bytes())))
                .collect(),
            contract: text,
        });
        Ok(())
    })?;
    let mut names = BTreeSet::new();
    if !out.iter().all(|t| names.insert(t.name.clone())) {
        return Err(DUPLICATE_TOOL_NAME);
    }
    out.sort_by(|a, b| a.name.encode_utf16().cmp(b.name.encode_utf16()));
    let map = RefValue::Object(
        out.iter()
            .map(|t| (t.name.clone(), RefValue::String(t.digest.clone())))
            .collect(),
    );
    let server_text = write(&map);
    let server_digest = hex(server_text.as_bytes());
    Ok((server_text, server_digest, out))
}
