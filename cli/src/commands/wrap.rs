//! `contractpin wrap` and `contractpin unwrap`: make an MCP client start
//! its pinned servers through `contractpin proxy`, and undo it.
//!
//! **What wrap writes.** Each entry of the configuration's servers map
//! (`mcpServers`: Claude Desktop, Cursor, Claude Code; `servers`: VS Code
//! `mcp.json`; `mcp.servers`: VS Code `settings.json`) whose name is pinned
//! in the lock becomes
//! `{"command": "/abs/contractpin", "args": ["proxy", "--lock", "/abs/contractpin.lock", "--name", NAME], ...}`:
//! the proxy takes the server's command (or URL) from the lock, so
//! `command`, `args`, `url`, `serverUrl` and `headers` go; `type` becomes
//! `"stdio"` (an HTTP entry becomes a stdio entry: the proxy speaks stdio to
//! the client); every other member (`env`, `cwd`, `envFile`, client
//! settings such as `autoApprove`) is kept byte for byte. Entries not in the
//! lock (a warning names them), disabled entries (named when pinned) and
//! entries already wrapped are left as they are, so a second wrap changes
//! nothing. A server name starting with `-` is refused: the proxy would
//! read it as an option.
//!
//! **Already wrapped** means exactly what wrap writes for this lock and
//! this name: this program, `proxy --lock LOCK --name NAME`, nothing else.
//! Any other entry that runs `contractpin proxy` ([`config::runs_proxy`]:
//! another lock, another name, `--mode observe`, a look-alike program) is
//! named with what differs and the wrap stops (exit 2, nothing written)
//! unless `--rewrap`, which rewrites such pinned entries.
//!
//! **No marker in the entry.** Clients validate their configuration
//! (Claude Desktop rejects entries it cannot read, and rewrites its own
//! file), so nothing is added that a client might refuse or drop: a wrapped
//! entry is recognised by its shape (a `command` named `contractpin*` whose
//! `args` start with `proxy`), and the original file is kept next to the
//! configuration as `FILE.contractpin-backup` (same permissions, written
//! atomically, never overwritten: a wrap that would change entries while a
//! backup exists is refused until `unwrap`).
//!
//! **Comments.** Only the byte ranges of the wrapped entries are rewritten,
//! so comments, trailing commas and formatting elsewhere in a JSONC file
//! stay; comments inside a wrapped entry live on in the backup only.
//!
//! **unwrap** puts back, entry by entry, the backup's text of every wrapped
//! entry, keeping any other change made since (a new server, another
//! setting); with no such change the file is byte-identical to the one
//! before wrap. A wrapped entry edited since wrap is refused (exit 2)
//! unless `--force`. The backup is removed afterwards.
//!
//! **Environment.** Clients start servers with a minimal environment, so
//! every `${VAR}` the lock entry needs (env values, header templates, URL)
//! must be in the entry's `env` block; wrap warns for each one that is not.
//! It also names (never shows) the kept env keys that decide which program
//! the lock's command resolves to or how it loads (`PATH`, `LD_*`, ...) or
//! where HTTP goes (`HTTPS_PROXY`, `SSL_CERT_FILE`, ...).
//!
//! **Safety of the write.** The file is read again just before it is
//! replaced: if another program changed it meanwhile, nothing is written.
//! `--dry-run` masks env and header values, credential URLs and
//! credential-like arguments in the diff.

pub(crate) mod config;
mod diff;

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use contractpin::lock::{self, Lock, LockServer, Source, Transport};

use crate::args::{UnwrapArgs, WrapArgs};
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::input::{io_reason, read_file};
use crate::output::{self, printable, write_stdout};
use config::{Config, Entry};

/// The suffix of the backup file.
pub const BACKUP_SUFFIX: &str = ".contractpin-backup";

/// Entry members the wrapped entry replaces.
const REPLACED: [&str; 6] = ["command", "args", "type", "url", "serverUrl", "headers"];

/// Runs `wrap`.
pub fn run_wrap(args: &WrapArgs) -> CliResult {
    let shown = args.config.display().to_string();
    refuse_link(&args.config, "configuration")?;
    let cfg = Config::parse(read_file(&args.config, &shown)?, &shown)?;
    let (lock_path, lock) = read_lock(&args.lock)?;
    let exe = exe_path()?;
    if let Some(w) = &cfg.other_maps {
        output::warning_line(w);
    }
    let plan = plan_wrap(&cfg, &lock, &shown, (&exe, &lock_path), args.rewrap)?;
    report_plan(&plan, &shown, &lock_path, args.rewrap)?;
    let backup = backup_path(&args.config);
    if plan.edits.is_empty() {
        return nothing_to_wrap(&cfg, &plan, &shown);
    }
    let have_backup = fs::symlink_metadata(&backup).is_ok();
    let fresh: Vec<String> = plan
        .edits
        .iter()
        .filter(|e| !e.rewrap)
        .map(|e| e.name.clone())
        .collect();
    if have_backup && !fresh.is_empty() {
        return Err(Failure::usage(format!(
            "{} exists (from an earlier wrap) and {shown} has entries that are not wrapped ({}): \
             run `contractpin unwrap --config {shown}` first, then wrap again",
            backup.display(),
            names(&fresh)
        )));
    }
    let new = splice(
        &cfg.bytes,
        plan.edits.iter().map(|e| (e.span, e.text.as_bytes())),
    );
    check_wrapped(&new, &plan, &shown, (&exe, &lock_path))?;
    if args.dry_run {
        return show_diff(&cfg, &new, &shown, "wrapped");
    }
    if !have_backup {
        write_backup(&backup, &cfg.bytes, &args.config).map_err(|e| {
            Failure::usage(format!(
                "cannot write {}: {}",
                backup.display(),
                io_reason(&e)
            ))
        })?;
    }
    if let Err(f) = replace_config(&args.config, &cfg.bytes, &new, &shown) {
        if !have_backup {
            let _ = fs::remove_file(&backup);
        }
        return Err(f);
    }
    let mut text = String::new();
    for e in &plan.edits {
        text.push_str(&format!(
            "wrapped {} (was {}): starts through contractpin proxy\n",
            printable(&e.name),
            e.was
        ));
    }
    text.push_str(&format!(
        "wrote {shown}; the original is in {} (`contractpin unwrap --config {shown}` restores it)\n",
        backup.display()
    ));
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `nothing to wrap`, with the entries already wrapped.
fn nothing_to_wrap(cfg: &Config, plan: &WrapPlan, shown: &str) -> CliResult {
    let mut text = format!("nothing to wrap in {shown}");
    if !plan.already.is_empty() {
        text.push_str(&format!(" (already wrapped: {})", names(&plan.already)));
    }
    if cfg.other_maps.is_some() {
        text.push_str("; servers in other maps were NOT read (see the warning)");
    }
    text.push('\n');
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// One entry to rewrite.
struct Edit {
    name: String,
    span: (usize, usize),
    text: String,
    was: &'static str,
    /// The entry ran `contractpin proxy` otherwise (`--rewrap`).
    rewrap: bool,
}

/// An entry that runs `contractpin proxy` otherwise than wrap would.
struct Mismatch {
    name: String,
    differences: Vec<String>,
    /// Whether the lock pins a server of this name that the proxy can run.
    pinned: bool,
}

/// What wrap will do.
struct WrapPlan {
    edits: Vec<Edit>,
    already: Vec<String>,
    mismatched: Vec<Mismatch>,
    disabled: Vec<String>,
}

/// Names the mismatched and disabled entries; fails (nothing written) on a
/// mismatched entry, unless `--rewrap` rewrites them all.
fn report_plan(plan: &WrapPlan, shown: &str, lock_path: &str, rewrap: bool) -> Result<(), Failure> {
    if !plan.disabled.is_empty() {
        output::warning_line(&format!(
            "{shown}: disabled, so left unwrapped: {} (pinned; enabled later in the client, it \
             would start without the proxy: enable it, unwrap if wrapped, then wrap again)",
            names(&plan.disabled)
        ));
    }
    for m in &plan.mismatched {
        output::warning_line(&format!(
            "{shown}: server {:?} runs contractpin proxy, but not as wrap writes it for {lock_path}: {}",
            m.name,
            m.differences.join("; ")
        ));
    }
    let all: Vec<String> = plan.mismatched.iter().map(|m| m.name.clone()).collect();
    let unpinned: Vec<String> = plan
        .mismatched
        .iter()
        .filter(|m| !m.pinned)
        .map(|m| m.name.clone())
        .collect();
    if !rewrap && !all.is_empty() {
        return Err(Failure::usage(format!(
            "{shown}: {} run contractpin proxy otherwise than wrap would; nothing was changed. \
             Check them: `contractpin wrap --rewrap` rewrites them to run this contractpin with {lock_path}",
            names(&all)
        )));
    }
    if !unpinned.is_empty() {
        return Err(Failure::usage(format!(
            "{shown}: {} run contractpin proxy but {lock_path} pins no server the proxy can run \
             under that name, so --rewrap cannot rewrite them; nothing was changed: remove them, \
             or pin the servers they stand for",
            names(&unpinned)
        )));
    }
    Ok(())
}

/// Decides every entry, printing the warnings. `to` is this program's path
/// and the lock's.
fn plan_wrap(
    cfg: &Config,
    lock: &Lock,
    shown: &str,
    to: (&str, &str),
    rewrap: bool,
) -> Result<WrapPlan, Failure> {
    let mut plan = WrapPlan {
        edits: Vec::new(),
        already: Vec::new(),
        mismatched: Vec::new(),
        disabled: Vec::new(),
    };
    let mut unpinned = Vec::new();
    for e in &cfg.entries {
        let server = lock.servers.get(&e.name);
        if let Some(w) = &e.wrapped {
            warn_env(shown, e);
            let differences = w.differences(to.0, to.1, &e.name);
            if differences.is_empty() {
                plan.already.push(e.name.clone());
                continue;
            }
            let pinned = server.is_some_and(|s| s.transport != Transport::File);
            if rewrap && pinned {
                let mut edit = new_edit(cfg, e, to, "a different contractpin proxy", shown)?;
                edit.rewrap = true;
                plan.edits.push(edit);
            }
            plan.mismatched.push(Mismatch {
                name: e.name.clone(),
                differences,
                pinned,
            });
            continue;
        }
        if e.disabled {
            if server.is_some() {
                plan.disabled.push(e.name.clone());
            }
            continue;
        }
        let Some(server) = server else {
            unpinned.push(e.name.clone());
            continue;
        };
        if server.transport == Transport::File {
            output::warning_line(&format!(
                "{shown}: server {:?} is pinned from a tools/list file, which the proxy cannot run; left as it is",
                e.name
            ));
            continue;
        }
        let source = e
            .source
            .as_ref()
            .map_err(|m| Failure::usage(format!("{shown}: server {:?}: {m}", e.name)))?;
        for w in entry_warnings(shown, e, source, server) {
            output::warning_line(&w);
        }
        warn_env(shown, e);
        plan.edits
            .push(new_edit(cfg, e, to, source.transport().as_str(), shown)?);
    }
    if !unpinned.is_empty() {
        output::warning_line(&format!(
            "{shown}: not pinned in the lock, left as they are: {}",
            names(&unpinned)
        ));
    }
    Ok(plan)
}

/// The edit that wraps `e`; a name starting with `-` is refused (the proxy
/// would read it as an option, and the entry would never start).
fn new_edit(
    cfg: &Config,
    e: &Entry,
    (exe, lock_path): (&str, &str),
    was: &'static str,
    shown: &str,
) -> Result<Edit, Failure> {
    if e.name.starts_with('-') {
        return Err(Failure::usage(format!(
            "{shown}: server {:?}: a name starting with '-' would be read by `contractpin proxy` \
             as an option, so the wrapped entry could not start; nothing was changed: rename the \
             server (in {shown} and in the lock: contractpin init --from {shown} --name NEW_NAME)",
            e.name
        )));
    }
    Ok(Edit {
        name: e.name.clone(),
        span: e.span,
        text: wrapped_text(cfg, e, exe, lock_path),
        was,
        rewrap: false,
    })
}

/// Env keys that decide which program a command name resolves to or how it
/// loads, or where HTTP goes (compared without case; `*` ends a prefix).
const RISKY_ENV: [&str; 12] = [
    "PATH",
    "LD_*",
    "DYLD_*",
    "PYTHONPATH",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The keys of `env_keys` that [`RISKY_ENV`] names.
fn risky_env(env_keys: &[String]) -> Vec<String> {
    env_keys
        .iter()
        .filter(|k| {
            let up = k.to_ascii_uppercase();
            RISKY_ENV.iter().any(|r| match r.strip_suffix('*') {
                Some(prefix) => up.starts_with(prefix),
                None => up == *r,
            })
        })
        .cloned()
        .collect()
}

/// Warns (names only) about the risky env keys a wrapped entry keeps.
fn warn_env(shown: &str, e: &Entry) {
    let risky = risky_env(&e.env_keys);
    if risky.is_empty() {
        return;
    }
    output::warning_line(&format!(
        "{shown}: server {:?}: its env block sets {}, which the proxy and the server it starts \
         inherit: they decide which program the lock's command runs (the lock pins a command's \
         name, looked up on PATH) and how it loads, or where HTTP goes; make sure you trust them",
        e.name,
        risky.join(", ")
    ));
}

/// The wrapped entry's text: `type` (when the entry had one), `command` and
/// `args`, then every kept member as written, in the entry's own layout.
fn wrapped_text(cfg: &Config, e: &Entry, exe: &str, lock_path: &str) -> String {
    let mut parts = Vec::new();
    if e.members.iter().any(|m| m.key == "type") {
        parts.push("\"type\": \"stdio\"".to_string());
    }
    parts.push(format!("\"command\": {}", json_str(exe)));
    parts.push(format!(
        "\"args\": [\"proxy\", \"--lock\", {}, \"--name\", {}]",
        json_str(lock_path),
        json_str(&e.name)
    ));
    for m in e
        .members
        .iter()
        .filter(|m| !REPLACED.contains(&m.key.as_str()))
    {
        parts.push(String::from_utf8_lossy(cfg.slice(m.span)).into_owned());
    }
    if !cfg.slice(e.span).contains(&b'\n') {
        return format!("{{{}}}", parts.join(", "));
    }
    let nl = cfg.newline;
    let inner = e
        .member_indent
        .clone()
        .unwrap_or_else(|| format!("{}  ", e.key_indent));
    let close = e
        .close_indent
        .clone()
        .unwrap_or_else(|| e.key_indent.clone());
    format!(
        "{{{nl}{inner}{}{nl}{close}}}",
        parts.join(&format!(",{nl}{inner}"))
    )
}

/// What the user should know about one entry before it runs through the
/// proxy (no value is ever shown: names only).
fn entry_warnings(shown: &str, e: &Entry, source: &Source, server: &LockServer) -> Vec<String> {
    let name = &e.name;
    let mut out = Vec::new();
    if let Some(why) = source_differs(source, server) {
        out.push(format!(
            "{shown}: server {name:?}: {why}; the proxy runs the server as the lock says \
             (if the configuration is right: `contractpin unwrap --config {shown}`, \
             `contractpin init --from {shown} --name {name} --force`, then wrap again)"
        ));
    }
    for var in lock_references(server) {
        if !e.env_keys.contains(&var) {
            let env_file = if e.env_file {
                " (or make sure its envFile sets it)"
            } else {
                ""
            };
            out.push(format!(
                "the lock needs ${{{var}}} for server {name:?}; add it to the env block of {name} \
                 in {shown}{env_file}: clients start servers with a minimal environment"
            ));
        }
    }
    if let Source::Http { headers, .. } = source {
        let stored = server.headers.clone().unwrap_or_default();
        for h in headers.keys() {
            if !stored.keys().any(|k| k.eq_ignore_ascii_case(h)) {
                out.push(format!(
                    "{shown}: server {name:?} sends header {h}, which the lock does not store \
                     (a literal value is never stored): the proxy will not send it; pin a \
                     reference (`--header '{h}: Bearer ${{VAR}}'`) and put VAR in the env block"
                ));
            }
        }
    }
    if e.commented {
        out.push(format!(
            "{shown}: the comments inside server {name:?} are kept in the backup only"
        ));
    }
    out
}

/// Why the configuration's source differs from the lock's, if it does.
fn source_differs(source: &Source, server: &LockServer) -> Option<&'static str> {
    match (source, server.source()?) {
        (
            Source::Stdio { command, .. },
            Source::Stdio {
                command: pinned, ..
            },
        ) => (*command != pinned)
            .then_some("its command in the configuration differs from the lock's"),
        (Source::Http { url, .. }, Source::Http { url: pinned, .. }) => (lock::url_for_lock(url)
            != pinned)
            .then_some("its URL in the configuration differs from the lock's"),
        _ => Some("its transport in the configuration differs from the lock's"),
    }
}

/// Every `${VAR}` name the lock entry needs at run time.
fn lock_references(server: &LockServer) -> Vec<String> {
    let mut texts: Vec<&str> = Vec::new();
    if let Some(env) = &server.env {
        texts.extend(env.values().map(String::as_str));
    }
    if let Some(h) = &server.headers {
        texts.extend(h.values().map(String::as_str));
    }
    if let Some(u) = &server.url {
        texts.push(u);
    }
    let mut out: Vec<String> = texts.into_iter().flat_map(references).collect();
    out.sort();
    out.dedup();
    out
}

/// The names of the `${NAME}` / `${env:NAME}` references in `text`.
fn references(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(p) = rest.find("${") {
        let after = &rest[p + 2..];
        let Some(end) = after.find('}') else { break };
        let inner = &after[..end];
        out.push(inner.strip_prefix("env:").unwrap_or(inner).to_string());
        rest = &after[end + 1..];
    }
    out
}

/// Fails closed unless the new text parses and every edited entry now is
/// exactly what wrap writes under its own name.
fn check_wrapped(
    new: &[u8],
    plan: &WrapPlan,
    shown: &str,
    (exe, lock_path): (&str, &str),
) -> Result<(), Failure> {
    let bug = || {
        Failure::usage(format!("internal error: the wrapped {shown} would not read back; nothing was written (please report this bug)"))
    };
    let cfg = Config::parse(new.to_vec(), shown).map_err(|_| bug())?;
    for edit in &plan.edits {
        let ok = cfg
            .get(&edit.name)
            .and_then(|e| e.wrapped.as_ref())
            .is_some_and(|w| w.differences(exe, lock_path, &edit.name).is_empty());
        if !ok {
            return Err(bug());
        }
    }
    Ok(())
}

/// Runs `unwrap`.
pub fn run_unwrap(args: &UnwrapArgs) -> CliResult {
    let shown = args.config.display().to_string();
    refuse_link(&args.config, "configuration")?;
    let backup = backup_path(&args.config);
    let backup_shown = backup.display().to_string();
    let cur = Config::parse(read_file(&args.config, &shown)?, &shown)?;
    if fs::symlink_metadata(&backup).is_err() {
        return Err(Failure::usage(format!(
            "no backup {backup_shown}: {shown} was not wrapped by `contractpin wrap`, or was unwrapped already"
        )));
    }
    refuse_link(&backup, "backup")?;
    let orig = Config::parse(read_file(&backup, &backup_shown)?, &backup_shown)?;
    let plan = plan_unwrap(&cur, &orig, &shown, args.force)?;
    if plan.restore.is_empty() {
        return nothing_to_unwrap(&cur, &orig, &backup, &shown);
    }
    let new = splice(
        &cur.bytes,
        plan.restore
            .iter()
            .map(|(_, span, text)| (*span, text.as_slice())),
    );
    if args.dry_run {
        return show_diff(&cur, &new, &shown, "unwrapped");
    }
    replace_config(&args.config, &cur.bytes, &new, &shown)?;
    remove_backup(&backup)?;
    let mut text = String::new();
    for (name, _, _) in &plan.restore {
        text.push_str(&format!("unwrapped {}\n", printable(name)));
    }
    if new == orig.bytes {
        text.push_str(&format!(
            "restored {shown} exactly as it was before wrap; removed {backup_shown}\n"
        ));
    } else {
        text.push_str(&format!(
            "restored the wrapped entries of {shown} from {backup_shown} (changes made since wrap are kept); removed it\n"
        ));
    }
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The entries to restore: `(name, span in the current file, original text)`.
struct UnwrapPlan {
    restore: Vec<(String, (usize, usize), Vec<u8>)>,
}

fn plan_unwrap(
    cur: &Config,
    orig: &Config,
    shown: &str,
    force: bool,
) -> Result<UnwrapPlan, Failure> {
    let mut restore = Vec::new();
    let mut changed = Vec::new();
    let mut lost = Vec::new();
    for e in &cur.entries {
        let Some(w) = &e.wrapped else { continue };
        let Some(o) = orig.get(&e.name).filter(|o| o.wrapped.is_none()) else {
            lost.push(e.name.clone());
            continue;
        };
        let expected = wrapped_text(orig, o, &w.command, w.lock.as_deref().unwrap_or(""));
        if cur.slice(e.span) != expected.as_bytes() {
            changed.push(e.name.clone());
        }
        restore.push((e.name.clone(), e.span, orig.slice(o.span).to_vec()));
    }
    if !changed.is_empty() && !force {
        return Err(Failure::usage(format!(
            "{shown}: the wrapped entries {} changed since wrap; nothing was restored \
             (--force restores them from the backup anyway, losing those edits)",
            names(&changed)
        )));
    }
    if !lost.is_empty() {
        output::warning_line(&format!(
            "{shown}: the backup has no original for {}; left as they are",
            names(&lost)
        ));
    }
    Ok(UnwrapPlan { restore })
}

/// Nothing wrapped: the backup goes only when it equals the file.
fn nothing_to_unwrap(cur: &Config, orig: &Config, backup: &Path, shown: &str) -> CliResult {
    if cur.bytes == orig.bytes {
        remove_backup(backup)?;
        write_stdout(
            format!(
                "nothing to unwrap in {shown}; removed {} (it equals the file)\n",
                backup.display()
            )
            .as_bytes(),
        )?;
    } else {
        output::warning_line(&format!(
            "nothing to unwrap in {shown} (no wrapped entry); {} is kept: remove it yourself once it is no longer needed",
            backup.display()
        ));
    }
    Ok(EXIT_OK)
}

/// Replaces the configuration with `new`, unless the file on disk is no
/// longer `read` (another program wrote it since): then nothing is written.
fn replace_config(path: &Path, read: &[u8], new: &[u8], shown: &str) -> Result<(), Failure> {
    if read_file(path, shown)? != read {
        return Err(Failure::usage(format!(
            "{shown} changed while contractpin was working on it (another program wrote it); \
             nothing was changed: run the command again"
        )));
    }
    lock::save_atomic(path, new)
        .map_err(|e| Failure::usage(format!("cannot write {shown}: {}", io_reason(&e))))
}

/// The mask that replaces a secret value in printed text.
const MASK: &[u8] = b"\"***\"";

/// The file's text with every value of [`Config::secret_spans`] masked.
fn masked(cfg: &Config) -> String {
    let out = splice(&cfg.bytes, cfg.secret_spans().map(|span| (span, MASK)));
    String::from_utf8_lossy(&out).into_owned()
}

/// `--dry-run`: the unified diff on stdout (secret values masked), nothing
/// written.
fn show_diff(old: &Config, new: &[u8], shown: &str, what: &str) -> CliResult {
    let new = Config::parse(new.to_vec(), shown)?;
    let d = diff::unified(
        &masked(old),
        &masked(&new),
        shown,
        &format!("{shown} ({what})"),
    );
    write_stdout(d.as_bytes())?;
    output::warning_line(&format!("dry run: {shown} was not changed"));
    Ok(EXIT_OK)
}

/// `bytes` with each span replaced (spans do not overlap).
fn splice<'a>(bytes: &[u8], edits: impl Iterator<Item = ((usize, usize), &'a [u8])>) -> Vec<u8> {
    let mut edits: Vec<_> = edits.collect();
    edits.sort_by_key(|(span, _)| span.0);
    let mut out = Vec::with_capacity(bytes.len() + 512);
    let mut at = 0;
    for ((start, end), text) in edits {
        out.extend_from_slice(&bytes[at..start]);
        out.extend_from_slice(text);
        at = end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// `FILE.contractpin-backup`.
pub fn backup_path(config: &Path) -> PathBuf {
    let mut p = config.as_os_str().to_os_string();
    p.push(BACKUP_SUFFIX);
    PathBuf::from(p)
}

/// Refuses a symbolic link: the file it points to would be rewritten.
fn refuse_link(path: &Path, what: &str) -> Result<(), Failure> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let target = fs::canonicalize(path)
                .map(|t| format!(" (run it on {})", t.display()))
                .unwrap_or_default();
            Err(Failure::usage(format!(
                "the {what} {} is a symbolic link; refusing to write through it{target}",
                path.display()
            )))
        }
        _ => Ok(()),
    }
}

/// `path` made absolute, with links resolved. On Windows it is written as a
/// client's configuration would write it (`C:\...`), not in the verbatim
/// form (`\\?\C:\...`) that `canonicalize` gives there, which some
/// programs refuse; a path that needs that form (260 characters or more)
/// keeps it.
fn real_path(path: &Path) -> io::Result<PathBuf> {
    let real = fs::canonicalize(path)?;
    #[cfg(windows)]
    if let Some(plain) = real.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        if let [drive, b':', b'\\', ..] = plain.as_bytes() {
            if drive.is_ascii_alphabetic() && plain.len() < 260 {
                return Ok(PathBuf::from(plain));
            }
        }
    }
    Ok(real)
}

/// The lock's absolute path (as text) and its contents.
fn read_lock(path: &Path) -> Result<(String, Lock), Failure> {
    let shown = path.display();
    let abs = real_path(path).map_err(|e| {
        Failure::usage(format!(
            "cannot read the lock {shown}: {} (pin the servers first: contractpin init --from CONFIG)",
            io_reason(&e)
        ))
    })?;
    let bytes = read_file(&abs, &format!("lock file {shown}"))?;
    let lock = Lock::parse(&bytes).map_err(|e| Failure::usage(format!("{shown}: {e}")))?;
    crate::output::warn_unknown_keys(&shown.to_string(), &lock);
    let text = abs
        .to_str()
        .ok_or_else(|| Failure::usage(format!("the lock's path {shown} is not UTF-8")))?;
    Ok((text.to_string(), lock))
}

/// The absolute path a client should run this program by: [`on_path`]'s
/// when it finds one, else this binary's own path with links resolved.
fn exe_path() -> Result<String, Failure> {
    let real = std::env::current_exe()
        .and_then(|p| real_path(&p))
        .map_err(|e| {
            Failure::usage(format!(
                "cannot find this program's path: {}",
                io_reason(&e)
            ))
        })?;
    let exe = on_path(&real).unwrap_or(real);
    exe.to_str()
        .map(str::to_string)
        .ok_or_else(|| Failure::usage("this program's path is not UTF-8"))
}

/// When this program was started by name through `PATH` (as a shell starts
/// it), the first absolute `PATH` entry of that name, links unresolved, if
/// it is this very file. A package manager's link
/// (`/opt/homebrew/bin/contractpin`) outlives an upgrade; the versioned
/// file it points to (`.../Cellar/contractpin/0.1.0/bin/contractpin`) does
/// not. Unix only: on Windows `current_exe` already names the path it was
/// started by.
#[cfg(unix)]
fn on_path(real: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let argv0 = PathBuf::from(std::env::args_os().next()?);
    if argv0.components().count() != 1 || argv0.is_absolute() {
        return None;
    }
    let found = std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(&argv0))
        .find(|p| {
            fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })?;
    (fs::canonicalize(&found).ok()? == real).then_some(found)
}

#[cfg(not(unix))]
fn on_path(_: &Path) -> Option<PathBuf> {
    None
}

/// Writes the backup atomically without ever replacing an existing file:
/// a temporary file with the configuration's permissions, linked into place.
fn write_backup(path: &Path, bytes: &[u8], like: &Path) -> io::Result<()> {
    let perms = fs::metadata(like)?.permissions();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let result = (|| {
        let mut f = create_private(&tmp, &perms)?;
        f.write_all(bytes)?;
        f.set_permissions(perms.clone())?;
        f.sync_all()?;
        drop(f);
        fs::hard_link(&tmp, path)?;
        lock::sync_dir(&dir)
    })();
    let _ = fs::remove_file(&tmp);
    result
}

#[cfg(unix)]
fn create_private(path: &Path, perms: &fs::Permissions) -> io::Result<File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(perms.mode() & 0o777)
        .open(path)
}

#[cfg(not(unix))]
fn create_private(path: &Path, _perms: &fs::Permissions) -> io::Result<File> {
    OpenOptions::new().write(true).create_new(true).open(path)
}

fn remove_backup(backup: &Path) -> Result<(), Failure> {
    fs::remove_file(backup).map_err(|e| {
        Failure::usage(format!(
            "cannot remove {}: {}",
            backup.display(),
            io_reason(&e)
        ))
    })?;
    if let Some(dir) = backup.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = lock::sync_dir(dir);
    }
    Ok(())
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = Vec::new();
    contractpin::jcs::write_str(&mut out, s);
    String::from_utf8(out).unwrap_or_default()
}

/// Names for a message, quoted and comma-separated.
fn names(list: &[String]) -> String {
    list.iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_names() {
        assert_eq!(
            references("Bearer ${A} ${env:B_2}x${C"),
            vec!["A".to_string(), "B_2".to_string()]
        );
        assert!(references("plain").is_empty());
    }

    #[test]
    fn splicing() {
        let out = splice(
            b"0123456789",
            [((6, 8), &b"X"[..]), ((1, 3), &b"ab"[..])].into_iter(),
        );
        assert_eq!(out, b"0ab345X89");
    }

    /// A configuration another program changed after it was read is not
    /// replaced (its change would be lost); an unchanged one is.
    #[test]
    fn a_configuration_changed_since_it_was_read_is_not_replaced() {
        let dir = std::env::temp_dir().join(format!("cp-replace-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.json");
        fs::write(&path, b"changed by the client").unwrap();
        let e = replace_config(&path, b"as read", b"new", "c.json").unwrap_err();
        assert!(
            e.message
                .contains("changed while contractpin was working on it"),
            "{}",
            e.message
        );
        assert_eq!(fs::read(&path).unwrap(), b"changed by the client");
        replace_config(&path, b"changed by the client", b"new", "c.json").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        let _ = fs::remove_dir_all(&dir);
    }

    /// What `wrap` writes into a configuration is an absolute path with no
    /// verbatim prefix (Windows), to this program and to the lock.
    #[test]
    fn written_paths_are_plain_absolute_paths() {
        let exe = exe_path().unwrap();
        assert!(Path::new(&exe).is_absolute(), "{exe}");
        assert!(!exe.starts_with(r"\\?\"), "{exe}");
        let here = real_path(Path::new(".")).unwrap();
        assert!(here.is_absolute() && !here.to_string_lossy().starts_with(r"\\?\"));
    }
}
