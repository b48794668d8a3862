//! The error type of the MCP client.

use std::fmt;
use std::string::String;

/// What went wrong while talking to an MCP server.
///
/// Every kind means "could not check" (exit 1 for the CLI) except the two
/// usage problems, [`McpErrorKind::EnvVar`] and [`McpErrorKind::Spec`]; see
/// [`McpError::is_usage`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpErrorKind {
    /// The stdio server could not be started (command not found, bad cwd, ...).
    Spawn,
    /// The stdio server exited (or closed its stdout) before answering.
    Exited,
    /// A request or the whole exchange took longer than allowed.
    Timeout,
    /// The server broke the protocol: invalid JSON, a malformed message, an
    /// unsupported protocol version, a result without `tools`, ...
    Protocol,
    /// The server answered a request with a JSON-RPC error.
    JsonRpc {
        /// The error code the server sent.
        code: i64,
        /// The error message the server sent, escaped for display and cut
        /// like every server text (see [`crate::escape`]).
        message: String,
    },
    /// An HTTP request got a status that is not a success.
    Http {
        /// The HTTP status code.
        status: u16,
    },
    /// A network or file system operation failed (connection refused, file
    /// not found, broken pipe, ...).
    Io,
    /// The server returned a pagination cursor (other than `""`) a second time.
    StuckCursor,
    /// The server needed more `tools/list` pages than allowed.
    PageLimit,
    /// A line on the server's stdout was longer than allowed.
    LineTooLong,
    /// An HTTP response (or a file) was larger than allowed.
    ResponseTooLarge,
    /// The `tools/list` pages together were larger than the input size
    /// limit ([`ClientOptions::max_input_bytes`](super::ClientOptions::max_input_bytes)).
    SizeLimit,
    /// The same tool name appeared twice in the listing (the server's fault).
    DuplicateTool,
    /// A `${VAR}` reference names an unset (or non-UTF-8) environment
    /// variable, or is malformed. A usage problem.
    EnvVar,
    /// The server specification itself is unusable (empty command, bad URL,
    /// invalid header, unsupported forced protocol version). A usage problem.
    Spec,
}

impl McpErrorKind {
    /// A short stable name for the kind (`"timeout"`, `"json-rpc"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            McpErrorKind::Spawn => "spawn",
            McpErrorKind::Exited => "exited",
            McpErrorKind::Timeout => "timeout",
            McpErrorKind::Protocol => "protocol",
            McpErrorKind::JsonRpc { .. } => "json-rpc",
            McpErrorKind::Http { .. } => "http",
            McpErrorKind::Io => "io",
            McpErrorKind::StuckCursor => "stuck-cursor",
            McpErrorKind::PageLimit => "page-limit",
            McpErrorKind::LineTooLong => "line-too-long",
            McpErrorKind::ResponseTooLarge => "response-too-large",
            McpErrorKind::SizeLimit => "size-limit",
            McpErrorKind::DuplicateTool => "duplicate-tool",
            McpErrorKind::EnvVar => "env-var",
            McpErrorKind::Spec => "spec",
        }
    }
}

/// An error of the MCP client: a kind, a one-line message, and, for stdio
/// servers, the tail of what the server wrote to stderr.
///
/// The message never contains the values of expanded `${VAR}` references or
/// of HTTP headers: they are redacted before the error leaves
/// [`fetch_tools_list`](super::fetch_tools_list).
#[derive(Clone, Debug)]
pub struct McpError {
    kind: McpErrorKind,
    message: String,
    stderr_tail: Option<String>,
    /// The I/O error this one wraps (`std::error::Error::source`).
    source: Option<std::sync::Arc<std::io::Error>>,
}

/// Two errors are equal when kind, message and stderr tail are: the wrapped
/// I/O error (which has no equality of its own) is not compared.
impl PartialEq for McpError {
    fn eq(&self, other: &McpError) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.stderr_tail == other.stderr_tail
    }
}

impl Eq for McpError {}

impl McpError {
    /// A new error of `kind` with a one-line `message`.
    pub fn new(kind: McpErrorKind, message: impl Into<String>) -> McpError {
        McpError {
            kind,
            message: crate::escape::escape_hidden_cut(&message.into(), ONE_LINE_CHARS),
            stderr_tail: None,
            source: None,
        }
    }

    /// Keeps the I/O error this one was made from, as its `source()`.
    pub(crate) fn caused_by(mut self, e: std::io::Error) -> McpError {
        self.source = Some(std::sync::Arc::new(e));
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> &McpErrorKind {
        &self.kind
    }

    /// The one-line message (without the stderr tail).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The last lines the stdio server wrote to stderr, when there were any.
    pub fn stderr_tail(&self) -> Option<&str> {
        self.stderr_tail.as_deref()
    }

    /// Whether this is a usage problem (bad `${VAR}` reference or unusable
    /// server specification) rather than a server that could not be checked.
    pub fn is_usage(&self) -> bool {
        matches!(self.kind, McpErrorKind::EnvVar | McpErrorKind::Spec)
    }

    /// Attaches the stderr tail (ignored when empty).
    pub(crate) fn with_stderr(mut self, tail: String) -> McpError {
        if !tail.trim().is_empty() {
            self.stderr_tail = Some(tail);
        }
        self
    }

    /// Prefixes the message with some context.
    pub(crate) fn context(mut self, what: &str) -> McpError {
        self.message = std::format!("{what}: {}", self.message);
        self
    }

    /// Replaces every occurrence of each secret with `***`.
    pub(crate) fn redact(mut self, secrets: &[String]) -> McpError {
        self.message = redact(&self.message, secrets);
        if let McpErrorKind::JsonRpc { message, .. } = &mut self.kind {
            *message = redact(message, secrets);
        }
        if let Some(t) = self.stderr_tail.take() {
            self.stderr_tail = Some(redact(&t, secrets));
        }
        self
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(tail) = &self.stderr_tail {
            f.write_str("\nserver stderr (last lines):")?;
            for line in tail.lines() {
                write!(f, "\n  | {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for McpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Marks where server text was cut ([`one_line`], and the start of a stderr tail).
pub(crate) use crate::escape::CUT;

use crate::escape::ONE_LINE_CHARS;

/// Fragments shorter than this at a cut are left alone (too short to matter,
/// and masking them would garble ordinary text).
const MIN_FRAGMENT_CHARS: usize = 3;

/// Replaces each secret (of at least 4 bytes) in `text` with `***`, and also
/// the pieces of one that a cut left behind: server text is cut before the
/// secrets are known, so a token straddling a cut survives as a prefix just
/// before a [`CUT`] marker or a suffix just after one. Server text is
/// escaped ([`one_line`]) before the secrets are known too, so each secret
/// is also masked in its escaped form (a `\` in a token shows as `\\`).
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = String::from(text);
    let escaped = secrets
        .iter()
        .map(|s| crate::escape::escape(s))
        .filter(|e| !secrets.contains(e));
    let forms: std::vec::Vec<String> = secrets.iter().cloned().chain(escaped).collect();
    for s in &forms {
        if s.len() < 4 {
            continue;
        }
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), "***");
        }
        if out.contains(CUT) {
            out = mask_cut_fragments(&out, s);
        }
    }
    out
}

/// Masks the longest prefix of `secret` that ends right before each [`CUT`]
/// and the longest suffix of it that starts right after one.
fn mask_cut_fragments(text: &str, secret: &str) -> String {
    // Byte offsets where a prefix of `secret` may end / a suffix may start,
    // leaving out fragments shorter than MIN_FRAGMENT_CHARS.
    let bounds: std::vec::Vec<usize> = secret.char_indices().map(|(i, _)| i).skip(1).collect();
    let n_chars = bounds.len() + 1;
    let prefix_ends = bounds.iter().copied().skip(MIN_FRAGMENT_CHARS - 1);
    let suffix_starts = bounds
        .iter()
        .copied()
        .take(n_chars.saturating_sub(MIN_FRAGMENT_CHARS));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut after_cut = false;
    loop {
        if after_cut {
            if let Some(k) = suffix_starts
                .clone()
                .find(|&k| rest.starts_with(&secret[k..]))
            {
                out.push_str("***");
                rest = &rest[secret.len() - k..];
            }
        }
        let Some(i) = rest.find(CUT) else {
            out.push_str(rest);
            return out;
        };
        let before = &rest[..i];
        match prefix_ends
            .clone()
            .rev()
            .find(|&k| before.ends_with(&secret[..k]))
        {
            Some(k) => {
                out.push_str(&before[..before.len() - k]);
                out.push_str("***");
            }
            None => out.push_str(before),
        }
        out.push_str(CUT);
        rest = &rest[i + CUT.len()..];
        after_cut = true;
    }
}

pub(crate) use crate::escape::one_line;

/// Makes server-controlled multi-line text safe to print: each line (LF or
/// CRLF ends one) is escaped like [`one_line`], without the cut.
pub(crate) fn printable_lines(text: &str) -> String {
    let lines: std::vec::Vec<String> = text.lines().map(crate::escape::escape).collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;
    use std::vec;

    #[test]
    fn redacts_whole_secrets_and_pieces_left_at_a_cut() {
        let secrets = vec!["tok-7c1f9e2a44b05d38".to_string()];
        assert_eq!(
            redact("bad tok-7c1f9e2a44b05d38 here", &secrets),
            "bad *** here"
        );
        // A prefix just before the cut marker, a suffix just after one.
        assert_eq!(
            redact("invalid token tok-7c1f...", &secrets),
            "invalid token ***..."
        );
        assert_eq!(redact("...9e2a44b05d38 rest", &secrets), "...*** rest");
        // Ordinary text beside a cut is left alone.
        assert_eq!(redact("and so on... then", &secrets), "and so on... then");
        // Two-character fragments are too short to mask.
        assert_eq!(redact("to...", &secrets), "to...");
    }

    #[test]
    fn redacts_the_escaped_form_of_a_secret() {
        let secrets = vec!["tok\\7c1f9e2a\u{7}44b05d38".to_string()];
        let shown = one_line(&std::format!("bad token {}", secrets[0]));
        assert_eq!(shown, "bad token tok\\\\7c1f9e2a\\u{7}44b05d38");
        assert_eq!(redact(&shown, &secrets), "bad token ***");
    }

    #[test]
    fn one_line_escapes_instead_of_dropping() {
        assert_eq!(
            one_line("a\u{1b}[31mb\r\n::error::x\u{202e}\\"),
            "a\\u{1b}[31mb\\u{d}\\u{a}::error::x\\u{202e}\\\\"
        );
        assert_eq!(printable_lines("a\tb\r\nc\u{7}\n"), "a\\u{9}b\nc\\u{7}");
    }

    #[test]
    fn one_line_cuts_with_the_marker() {
        let long = "x".repeat(400);
        let cut = one_line(&long);
        assert!(cut.ends_with(CUT));
        assert_eq!(cut.chars().count(), 300 + CUT.len());
    }
}
