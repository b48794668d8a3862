//! Printing: stdout/stderr helpers, colour, GitHub Actions annotations.
//!
//! Server-controlled text never reaches a terminal or an annotation raw
//! (the rule is [`contractpin::escape`]): every untrusted value is escaped
//! with [`printable`] where it is put into a line, and every sink
//! ([`error_line`], [`warning_line`], the report's error text, each
//! annotation) passes its whole text through [`safe_lines`] as a safety net.
//! JSON output is written by the JSON writer, exact and unescaped.

use std::io::{IsTerminal, Write};
use std::path::Path;

use contractpin::escape::escape_hidden;
use contractpin::verify::{ServerReport, ServerStatus, ToolStatus, ToolVerdict};

use crate::fail::Failure;

/// Makes one untrusted value (a tool name, a server name) safe for one
/// terminal line: hidden characters (controls, newlines, ANSI escapes, bidi
/// controls, tags) are shown as `\u{..}`, a backslash as `\\`.
pub use contractpin::escape::escape as printable;

/// Composed text (our words and escaped values, possibly several lines)
/// with any hidden character left in a line shown as `\u{..}`. Existing
/// escapes and the line breaks between lines are kept.
pub fn safe_lines(text: &str) -> String {
    text.split('\n')
        .map(escape_hidden)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints `error: <message>` on stderr.
pub fn error_line(message: &str) {
    let message = safe_lines(message);
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// Prints `warning: <message>` on stderr.
pub fn warning_line(message: &str) {
    let message = safe_lines(message);
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

/// Writes bytes to stdout and flushes. A closed pipe (e.g. `| head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::usage(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// Whether GitHub Actions annotations are wanted (`GITHUB_ACTIONS=true`).
pub fn github_actions() -> bool {
    std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// Terminal styling: ANSI colour only when stdout is a terminal and
/// `NO_COLOR` is not set (https://no-color.org; any value disables colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// Colour iff stdout is a TTY and NO_COLOR is absent.
    pub fn detect() -> Style {
        Style {
            colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Red (failures).
    pub fn red(self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Green (passes).
    pub fn green(self, text: &str) -> String {
        self.paint("1;32", text)
    }

    /// Yellow (warnings, allowed additions).
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Dim (digests).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
}

/// The human-readable verify report.
pub fn text_report(reports: &[ServerReport], lock: &Path, style: Style) -> String {
    let mut out = String::new();
    let width = reports
        .iter()
        .flat_map(|r| r.tools.iter())
        .filter(|t| !matches!(t.status, ToolStatus::Unchanged))
        .map(|t| printable(&t.name).chars().count())
        .max()
        .unwrap_or(0);
    for r in reports {
        let c = r.counts();
        let name = printable(&r.name);
        match r.status() {
            ServerStatus::Unreachable => {
                out.push_str(&format!(
                    "{} {name}: could not be checked: {}\n",
                    style.red("UNREACHABLE"),
                    printable_multiline(r.error.as_deref().unwrap_or("unknown error"))
                ));
                continue;
            }
            ServerStatus::Ok => {
                let mut line = format!(
                    "{} {name}: {} tool{} unchanged",
                    style.green("OK"),
                    c.unchanged,
                    if c.unchanged == 1 { "" } else { "s" }
                );
                if c.added > 0 {
                    line.push_str(&format!(", {} added (allowed by --allow-new)", c.added));
                }
                out.push_str(&line);
                out.push('\n');
            }
            ServerStatus::Drift => {
                let mut parts = Vec::new();
                if r.instructions_failed() {
                    parts.extend(
                        r.instructions
                            .map(|i| format!("instructions {}", i.status.name())),
                    );
                }
                for (n, what) in [
                    (c.drifted, "drifted"),
                    (c.added, "added"),
                    (c.removed, "removed"),
                    (c.unchanged, "unchanged"),
                ] {
                    if n > 0 {
                        parts.push(format!("{n} {what}"));
                    }
                }
                out.push_str(&format!(
                    "{} {name}: {}\n",
                    style.red("DRIFT"),
                    parts.join(", ")
                ));
            }
        }
        if r.pinned_digest != r.live_digest {
            if let (Some(p), Some(l)) = (r.pinned_digest, r.live_digest) {
                out.push_str(&format!("  pinned {}\n", style.dim(&p.to_string())));
                out.push_str(&format!("  live   {}\n", style.dim(&l.to_string())));
            }
        }
        out.push_str(&facts_lines(r, style));
        for t in &r.tools {
            let tname = printable(&t.name);
            let pad = " ".repeat(width.saturating_sub(tname.chars().count()));
            let line = match &t.status {
                ToolStatus::Unchanged => continue,
                ToolStatus::Drifted { changed_fields } => {
                    let fields = if changed_fields.is_empty() {
                        "no field digests to compare".to_string()
                    } else {
                        format!("changed: {}", changed_fields.join(", "))
                    };
                    format!("  {}  {tname}{pad}  {fields}", style.red("drifted"))
                }
                ToolStatus::Added { renamed_from } => {
                    let label = if r.allow_new {
                        style.yellow("added  ")
                    } else {
                        style.red("added  ")
                    };
                    let mut l = format!("  {label}  {tname}{pad}");
                    if let Some(from) = renamed_from {
                        l.push_str(&format!("  likely renamed from {}", printable(from)));
                    } else if r.allow_new {
                        l.push_str("  (allowed by --allow-new)");
                    }
                    l
                }
                ToolStatus::Removed { renamed_to } => {
                    let mut l = format!("  {}  {tname}{pad}", style.red("removed"));
                    if let Some(to) = renamed_to {
                        l.push_str(&format!("  likely renamed to {}", printable(to)));
                    }
                    l
                }
            };
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    let failed = reports.iter().filter(|r| !r.passed()).count();
    let unreachable = reports
        .iter()
        .filter(|r| r.status() == ServerStatus::Unreachable)
        .count();
    let summary = if failed == 0 {
        style.green(&format!(
            "{} server{} {} {}",
            reports.len(),
            if reports.len() == 1 { "" } else { "s" },
            if reports.len() == 1 {
                "matches"
            } else {
                "match"
            },
            lock.display()
        ))
    } else {
        let mut s = format!(
            "{failed} of {} server{} failed verification against {}",
            reports.len(),
            if reports.len() == 1 { "" } else { "s" },
            lock.display()
        );
        if unreachable > 0 {
            s.push_str(&format!(" ({unreachable} could not be checked)"));
        }
        style.red(&s)
    };
    out.push_str(&summary);
    out.push('\n');
    out
}

/// The server-level lines of a checked server: the instructions verdict
/// when it is not unchanged, a changed `serverInfo` name or version or
/// protocol version, and on drift with the same version `contract changed,
/// server version still V` (a rug pull keeps its version). Server text is
/// shown with [`printable`].
fn facts_lines(r: &ServerReport, style: Style) -> String {
    use contractpin::verify::InstructionsStatus as I;
    let mut out = String::new();
    if let Some(v) = r.instructions.filter(|v| v.status != I::Unchanged) {
        let line = match v.status {
            I::Added if r.allow_new => style.yellow("instructions added (allowed by --allow-new)"),
            I::Added => style
                .red("instructions added (the lock pins none; re-pin or --ignore-instructions)"),
            I::Drifted => {
                style.red("instructions drifted (the server's instructions text changed)")
            }
            _ => style.red("instructions removed"),
        };
        out.push_str(&format!("  {line}\n"));
    }
    let shown = |v: &Option<String>| v.as_deref().map(printable);
    if let (Some(p), Some(l)) = (&r.pinned_server_info, &r.live_server_info) {
        if p.name != l.name {
            out.push_str(&format!(
                "  server name {} -> {}\n",
                printable(&p.name),
                printable(&l.name)
            ));
        }
        if p.version != l.version {
            out.push_str(&format!(
                "  server version {} -> {}\n",
                printable(&p.version),
                printable(&l.version)
            ));
        } else if r.status() == ServerStatus::Drift {
            out.push_str(&format!(
                "  contract changed, server version still {}\n",
                printable(&l.version)
            ));
        }
    }
    if let (Some(p), Some(l)) = (
        shown(&r.pinned_protocol_version),
        shown(&r.live_protocol_version),
    ) {
        if p != l {
            out.push_str(&format!("  protocol version {p} -> {l}\n"));
        }
    }
    out
}

/// An error message (escaped where it was composed; possibly several
/// lines) for the report, its lines indented under the first.
fn printable_multiline(text: &str) -> String {
    safe_lines(text.trim_end_matches('\n')).replace('\n', "\n    ")
}

/// Escapes a workflow command message (GitHub Actions): hidden characters
/// first ([`safe_lines`]), then the runner's own `%`, CR and LF escapes.
fn escape_data(text: &str) -> String {
    safe_lines(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// 1-based line of `"key": ` in `text` at or after byte `from`.
fn find_key_line(text: &str, key: &str, from: usize) -> Option<(usize, usize)> {
    let mut quoted = Vec::new();
    contractpin::jcs::write_str(&mut quoted, key);
    let needle = format!("{}: ", String::from_utf8_lossy(&quoted));
    let at = text.get(from..)?.find(&needle)? + from;
    Some((text[..at].matches('\n').count() + 1, at))
}

/// One workflow command line.
fn command(level: &str, file: &str, line: Option<usize>, title: &str, message: &str) -> String {
    let line = line.map(|l| format!(",line={l}")).unwrap_or_default();
    format!(
        "::{level} file={file}{line},title={}::{}\n",
        escape_property(title),
        escape_data(message)
    )
}

/// Level, title and message of the annotation for one tool (`None` when
/// unchanged); `server` and the names are shown with [`printable`].
fn tool_annotation(
    server: &str,
    allow_new: bool,
    t: &ToolVerdict,
) -> Option<(&'static str, String, String)> {
    let tool = printable(&t.name);
    let fix = "Review the change, then re-pin with `contractpin init --force`.";
    Some(match &t.status {
        ToolStatus::Unchanged => return None,
        ToolStatus::Drifted { changed_fields } => (
            "error",
            format!("contractpin: {server}/{tool} drifted"),
            format!(
                "Tool {tool} of server {server} no longer matches its pinned contract (changed: {}). {fix}",
                if changed_fields.is_empty() { "unknown".to_string() } else { changed_fields.join(", ") }
            ),
        ),
        ToolStatus::Added { renamed_from } => (
            if allow_new { "warning" } else { "error" },
            format!("contractpin: {server}/{tool} added"),
            match renamed_from {
                Some(from) => format!(
                    "Server {server} has a new tool {tool} (likely renamed from {}).",
                    printable(from)
                ),
                None => format!("Server {server} has a new tool {tool} that is not pinned."),
            },
        ),
        ToolStatus::Removed { renamed_to } => (
            "error",
            format!("contractpin: {server}/{tool} removed"),
            match renamed_to {
                Some(to) => format!(
                    "Pinned tool {tool} is gone from server {server} (likely renamed to {}).",
                    printable(to)
                ),
                None => format!("Pinned tool {tool} is gone from server {server}."),
            },
        ),
    })
}

/// The annotation for instructions that drifted, were added or removed.
fn instructions_annotation(
    r: &ServerReport,
    server: &str,
) -> Option<(&'static str, String, String)> {
    use contractpin::verify::InstructionsStatus as I;
    let status = r.instructions?.status;
    if status == I::Unchanged {
        return None;
    }
    let level = if status == I::Added && r.allow_new {
        "warning"
    } else {
        "error"
    };
    Some((
        level,
        format!("contractpin: {server} instructions {}", status.name()),
        format!(
            "The instructions of server {server} ({}) no longer match the lock. \
             Review them, then re-pin with `contractpin init --force`.",
            status.name()
        ),
    ))
}

/// The annotations of one server: one for an unreachable server, else one
/// per drifted, added or removed tool, on the tool's line of the lock (an
/// added tool, or a tool not found, on the server's line).
fn server_annotations(r: &ServerReport, file: &str, lock_text: &str, out: &mut String) {
    let servers_at = find_key_line(lock_text, "servers", 0).map_or(0, |(_, at)| at);
    let server_pos = find_key_line(lock_text, &r.name, servers_at);
    let server_line = server_pos.map(|(l, _)| l);
    let server = printable(&r.name);
    if r.status() == ServerStatus::Unreachable {
        let title = format!("contractpin: server {server} could not be checked");
        let message = r.error.as_deref().unwrap_or("unknown error");
        out.push_str(&command("error", file, server_line, &title, message));
        return;
    }
    if let Some((level, title, message)) = instructions_annotation(r, &server) {
        out.push_str(&command(level, file, server_line, &title, &message));
    }
    let tools_at = server_pos
        .and_then(|(_, at)| find_key_line(lock_text, "tools", at))
        .map(|(_, at)| at);
    for t in &r.tools {
        let Some((level, title, message)) = tool_annotation(&server, r.allow_new, t) else {
            continue;
        };
        let tool_line = tools_at
            .and_then(|at| find_key_line(lock_text, &t.name, at))
            .map(|(l, _)| l);
        let line = match t.status {
            ToolStatus::Added { .. } => server_line,
            _ => tool_line.or(server_line),
        };
        out.push_str(&command(level, file, line, &title, &message));
    }
}

/// Prints GitHub Actions annotations (`::error file=<lock>,line=N,title=...::...`)
/// for every drifted, added or removed tool and every unreachable server.
/// On stdout, or on stderr when stdout carries JSON (the runner reads both).
pub fn annotate(reports: &[ServerReport], lock: &Path, lock_text: &str, to_stderr: bool) {
    let file = escape_property(&lock.display().to_string());
    let mut out = String::new();
    for r in reports {
        server_annotations(r, &file, lock_text, &mut out);
    }
    if to_stderr {
        let _ = std::io::stderr().lock().write_all(out.as_bytes());
    } else {
        let _ = write_stdout(out.as_bytes());
    }
}
