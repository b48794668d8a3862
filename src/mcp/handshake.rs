//! Both handshake generations: the `server/discover` probe (2026-07-28) and
//! `initialize` with version negotiation (2024-11-05 .. 2025-11-25). Both
//! declare [`ClientOptions::client_capabilities`](super::ClientOptions::client_capabilities)
//! (checked by `fetch_tools_list` before anything starts).

use std::string::{String, ToString};
use std::vec::Vec;

use crate::contract::variant::{variant_member, HANDSHAKE};
use crate::jcs;
use crate::json::{Tag, Value};
use crate::lock::{capabilities_json, ServerInfo};

use super::error::{one_line, McpError, McpErrorKind};
use super::jsonrpc;
use super::options::{
    is_supported_protocol_version, LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION,
};
use super::session::Session;
use super::transport::Transport;

/// The newest `initialize`-generation version, the one we offer.
const OFFERED: &str = LEGACY_PROTOCOL_VERSIONS[LEGACY_PROTOCOL_VERSIONS.len() - 1];

/// The outcome of the handshake.
#[derive(Clone, Debug)]
pub(crate) struct Negotiated {
    /// The protocol version in use.
    pub version: String,
    /// `"discover"` or `"initialize"`.
    pub handshake: &'static str,
    /// `Some(false)` when the server declared capabilities without `tools`.
    pub tools_capability: Option<bool>,
    /// `_meta` for every request of the modern generation.
    pub meta: Option<Vec<u8>>,
    /// The result's `serverInfo` (modern: `_meta`
    /// `io.modelcontextprotocol/serverInfo`), when it has string `name`
    /// and `version`.
    pub server_info: Option<ServerInfo>,
    /// The result's `instructions`, when a string.
    pub instructions: Option<String>,
}

/// `serverInfo` of a handshake result (the rule shared with the C ABI's
/// one-call verify: [`crate::guard::instructions::server_info`]).
fn server_info(root: Value<'_>) -> Option<ServerInfo> {
    crate::guard::instructions::server_info(root)
}

/// `instructions` of a handshake result; one that is not a string is
/// ignored with a warning (it is not text a model reads). A key that is a
/// case variant of `instructions` fails the handshake (spec section 6).
fn instructions(root: Value<'_>, s: &mut Session<'_>) -> Result<Option<String>, McpError> {
    if let Some(key) = variant_member(root, &HANDSHAKE) {
        return Err(jsonrpc::case_variant("the handshake result", key));
    }
    Ok(instructions_text(root, s))
}

/// [`instructions`] once the keys are checked.
fn instructions_text(root: Value<'_>, s: &mut Session<'_>) -> Option<String> {
    crate::guard::instructions::instructions_text(root).unwrap_or_else(|_| {
        s.warnings.push(String::from(
            "the server's instructions are not a string; they were ignored",
        ));
        None
    })
}

/// `{"io.modelcontextprotocol/clientCapabilities":{...},...}` for the modern generation.
pub(crate) fn modern_meta(s: &Session<'_>) -> Vec<u8> {
    let mut m = Vec::with_capacity(200);
    m.extend_from_slice(b"{\"io.modelcontextprotocol/clientCapabilities\":");
    m.extend_from_slice(&capabilities_json(&s.opts.client_capabilities));
    m.extend_from_slice(b",\"io.modelcontextprotocol/clientInfo\":");
    client_info(&mut m, s);
    m.extend_from_slice(b",\"io.modelcontextprotocol/protocolVersion\":");
    jcs::write_str(&mut m, MODERN_PROTOCOL_VERSION);
    m.push(b'}');
    m
}

fn client_info(out: &mut Vec<u8>, s: &Session<'_>) {
    out.extend_from_slice(b"{\"name\":");
    jcs::write_str(out, &s.opts.client_name);
    out.extend_from_slice(b",\"version\":");
    jcs::write_str(out, &s.opts.client_version);
    out.push(b'}');
}

/// Runs the handshake: the discover probe with fallback to `initialize`, or
/// the one generation a forced protocol version asks for.
pub(crate) fn handshake(
    t: &mut dyn Transport,
    s: &mut Session<'_>,
) -> Result<Negotiated, McpError> {
    match s.opts.protocol_version.clone() {
        Some(v) if v == MODERN_PROTOCOL_VERSION => match discover(t, s)? {
            Ok(n) => Ok(n),
            Err(why) => Err(McpError::new(
                McpErrorKind::Protocol,
                std::format!("protocol version {MODERN_PROTOCOL_VERSION} was forced, but {why}"),
            )),
        },
        Some(v) if is_supported_protocol_version(&v) => initialize(t, s, &v, true),
        Some(v) => Err(McpError::new(
            McpErrorKind::Spec,
            std::format!(
                "unsupported protocol version `{}` (supported: {}, {MODERN_PROTOCOL_VERSION})",
                one_line(&v),
                LEGACY_PROTOCOL_VERSIONS.join(", ")
            ),
        )),
        None => match discover(t, s)? {
            Ok(n) => Ok(n),
            Err(_) => initialize(t, s, OFFERED, false),
        },
    }
}

/// The `server/discover` probe. `Ok(Err(reason))` means "fall back".
fn discover(
    t: &mut dyn Transport,
    s: &mut Session<'_>,
) -> Result<Result<Negotiated, String>, McpError> {
    t.set_version(Some(MODERN_PROTOCOL_VERSION), true);
    let meta = modern_meta(s);
    let mut params = Vec::with_capacity(meta.len() + 12);
    params.extend_from_slice(b"{\"_meta\":");
    params.extend_from_slice(&meta);
    params.push(b'}');
    let result = match s.call(t, "server/discover", Some(&params)) {
        Ok(r) => r,
        Err(e) => {
            t.set_version(None, false);
            return match e.kind() {
                McpErrorKind::JsonRpc { code, .. } => Ok(Err(std::format!(
                    "server/discover failed with JSON-RPC error {code}"
                ))),
                McpErrorKind::Http { status } if (400..500).contains(status) => Ok(Err(
                    std::format!("server/discover got HTTP status {status}"),
                )),
                McpErrorKind::Timeout if !s.clock.total().passed() => {
                    s.warnings.push(String::from(
                        "the server did not answer server/discover in time; fell back to initialize",
                    ));
                    Ok(Err(String::from("server/discover was not answered")))
                }
                _ => Err(e),
            };
        }
    };
    let mut nodes = Vec::new();
    let tape = jsonrpc::parse(&result, &mut nodes)
        .map_err(|e| McpError::new(McpErrorKind::Protocol, e.to_string()))?;
    let root = tape.root();
    if root.tag() != Tag::Object {
        t.set_version(None, false);
        return Ok(Err(String::from(
            "the server/discover result is not an object",
        )));
    }
    if let Some(list) = root.get("supportedVersions") {
        let ok = list.elements().any(|v| v.str_eq(MODERN_PROTOCOL_VERSION));
        if !ok {
            t.set_version(None, false);
            s.warnings.push(String::from(
                "the server answered server/discover without supporting 2026-07-28; fell back to initialize",
            ));
            return Ok(Err(String::from(
                "the server does not list 2026-07-28 in supportedVersions",
            )));
        }
    }
    Ok(Ok(Negotiated {
        version: String::from(MODERN_PROTOCOL_VERSION),
        handshake: "discover",
        tools_capability: tools_capability(root.get("capabilities")),
        meta: Some(meta),
        server_info: server_info(root),
        instructions: instructions(root, s)?,
    }))
}

fn tools_capability(caps: Option<crate::json::Value<'_>>) -> Option<bool> {
    match caps {
        Some(c) if c.tag() == Tag::Object => Some(c.get("tools").is_some_and(|t| !t.is_null())),
        _ => None,
    }
}

/// `initialize` offering `offer`, then `notifications/initialized`.
fn initialize(
    t: &mut dyn Transport,
    s: &mut Session<'_>,
    offer: &str,
    exact: bool,
) -> Result<Negotiated, McpError> {
    t.set_version(None, false);
    let mut params = Vec::with_capacity(160);
    params.extend_from_slice(b"{\"capabilities\":");
    params.extend_from_slice(&capabilities_json(&s.opts.client_capabilities));
    params.extend_from_slice(b",\"clientInfo\":");
    client_info(&mut params, s);
    params.extend_from_slice(b",\"protocolVersion\":");
    jcs::write_str(&mut params, offer);
    params.push(b'}');
    let result = s
        .call(t, "initialize", Some(&params))
        .map_err(|e| e.context("initialize failed"))?;
    let mut nodes = Vec::new();
    let tape = jsonrpc::parse(&result, &mut nodes)
        .map_err(|e| McpError::new(McpErrorKind::Protocol, e.to_string()))?;
    let root = tape.root();
    let version = root
        .get("protocolVersion")
        .and_then(jsonrpc::decode)
        .ok_or_else(|| {
            McpError::new(
                McpErrorKind::Protocol,
                "the initialize result has no protocolVersion string",
            )
        })?;
    let accepted = if exact {
        version == offer
    } else {
        LEGACY_PROTOCOL_VERSIONS.contains(&version.as_str())
    };
    if !accepted {
        let msg = if exact {
            std::format!(
                "protocol version {offer} was forced, but the server answered initialize with `{}`",
                one_line(&version)
            )
        } else {
            std::format!(
                "the server wants protocol version `{}`, which this client does not speak (it speaks {})",
                one_line(&version),
                LEGACY_PROTOCOL_VERSIONS.join(", ")
            )
        };
        return Err(McpError::new(McpErrorKind::Protocol, msg));
    }
    let tools_capability = tools_capability(root.get("capabilities"));
    let server_info = server_info(root);
    let instructions = instructions(root, s)?;
    t.set_version(Some(&version), false);
    s.notify(t, "notifications/initialized")?;
    Ok(Negotiated {
        version,
        handshake: "initialize",
        tools_capability,
        meta: None,
        server_info,
        instructions,
    })
}
