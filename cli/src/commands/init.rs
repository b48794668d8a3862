//! `contractpin init`: fetch servers and pin them in the lock.
//!
//! All servers are fetched and digested first; only when every one succeeds
//! is the lock updated (atomically, under a file lock, keeping the other
//! servers). Any failure leaves the lock untouched. The `serverInfo` it
//! records has the secrets the server was given masked; a tool contract
//! holding one is never snapshotted (exit 2; `--no-snapshot` pins it by
//! digest only).

use std::collections::BTreeMap;
use std::path::Path;

use contractpin::fs::ReadFileError;
use contractpin::lock::{self, HeaderValue, Lock, LockServer, Source, UpdateError};
use contractpin::mcp::Secrets;
use contractpin::{Limits, ServerDigest};

use crate::args::InitArgs;
use crate::config_import;
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::fetch::{self, FetchOptions};
use crate::output::{self, write_stdout};
use crate::source::{parse_env, parse_header, with_headers};

/// Runs `init`.
pub fn run(args: &InitArgs) -> CliResult {
    let targets = targets(args)?;
    let limits = args.limits.limits();
    let mut opts = FetchOptions::from_args(&args.limits)?;
    let caps = fetch::client_capabilities(args.client_capabilities.as_deref())?.unwrap_or_default();
    if !caps.is_empty() && args.file.is_some() {
        return Err(Failure::usage(
            "--client-capabilities applies to a live server, not a --file dump",
        ));
    }
    opts.client_capabilities = caps.clone();
    precheck(&args.lock, &targets, args.force)?;
    // Every source checked before anything is fetched: a usage problem exits
    // 2 without starting a server.
    let mut specs = Vec::new();
    let mut secrets = Vec::new();
    for (name, source) in &targets {
        let ctx = |m: String| Failure::usage(format!("server {name:?}: {m}"));
        let spec = fetch::spec(source, &args.lock, args.allow_outside_paths).map_err(ctx)?;
        fetch::check(&spec).map_err(|e| ctx(e.message))?;
        secrets_policy(name, source).map_err(ctx)?;
        secrets.push(super::verify::server_secrets(name, &spec, &opts)?);
        specs.push(spec);
    }

    // Every server fetched (several at once), then each reported in order.
    let jobs = specs.into_iter().map(|s| (s, opts.clone())).collect();
    let results = fetch::fetch_all(jobs, opts.jobs);
    let mut pinned: Vec<(String, Source, ServerDigest, Extras)> = Vec::new();
    let mut failed = 0usize;
    for (((name, source), result), secrets) in targets.iter().zip(results).zip(&secrets) {
        match result {
            Err(e) if e.usage => {
                return Err(Failure::usage(format!("server {name:?}: {}", e.message)));
            }
            Err(e) => {
                output::error_line(&format!(
                    "server {name:?}: cannot fetch the tools list: {}",
                    e.message
                ));
                if let Some(note) = where_it_ran(source, &args.lock) {
                    output::warning_line(&format!("server {name:?}: {note}"));
                }
                failed += 1;
            }
            Ok(fetched) => {
                for w in &fetched.warnings {
                    output::warning_line(&format!("server {name:?}: {w}"));
                }
                match digest_and_extras(&fetched, limits, args) {
                    Ok((digests, extras)) => {
                        let extras = without_secrets(name, &digests, extras, secrets)?;
                        pinned.push((name.clone(), source.clone(), digests, extras))
                    }
                    Err(e) => {
                        output::error_line(&format!("server {name:?}: invalid tools list: {e}"));
                        failed += 1;
                    }
                }
            }
        }
    }
    if failed > 0 {
        return Err(Failure::server(format!(
            "{failed} of {} server(s) could not be pinned; {} was not changed",
            targets.len(),
            args.lock.display()
        )));
    }

    let generated_at = lock::timestamp_now().map_err(|e| Failure::usage(e.to_string()))?;
    let entries: Vec<(String, LockServer)> = pinned
        .iter()
        .map(|(name, source, digests, extras)| {
            let mut server = LockServer::from_server_digest(source.clone(), digests);
            if !caps.is_empty() && !matches!(source, Source::File { .. }) {
                server.client_capabilities = Some(caps.clone());
            }
            record_extras(name, &mut server, extras, args);
            (name.clone(), server)
        })
        .collect();
    let force = args.force;
    let result = lock::update(&args.lock, |current: Option<Lock>| {
        let mut lock = current.unwrap_or_else(|| Lock::new(generated_at.clone()));
        for (name, _) in &entries {
            if lock.servers.contains_key(name) && !force {
                return Err(name.clone());
            }
        }
        for (name, mut server) in entries {
            if let Some(old) = lock.servers.get(&name) {
                server.keep_unknown_from(old);
            }
            lock.servers.insert(name, server);
        }
        lock.generated_at = generated_at;
        Ok(lock)
    });
    match result {
        Ok(_) => {}
        Err(UpdateError::Aborted(name)) => return Err(exists(&name, &args.lock)),
        Err(UpdateError::Lock(e)) => {
            return Err(Failure::usage(format!("{}: {e}", args.lock.display())))
        }
        Err(UpdateError::Io(e)) => {
            return Err(Failure::usage(format!(
                "cannot write {}: {e}",
                args.lock.display()
            )))
        }
    }
    let mut text = String::new();
    for (name, source, digests, _) in &pinned {
        let n = digests.tools.len();
        let declared = if caps.is_empty() || matches!(source, Source::File { .. }) {
            String::new()
        } else {
            format!(", client capabilities {}", caps.join(","))
        };
        text.push_str(&format!(
            "pinned {} ({}): {}  ({n} tool{}{declared})\n",
            output::printable(name),
            source.transport(),
            digests.digest,
            if n == 1 { "" } else { "s" }
        ));
    }
    text.push_str(&format!("wrote {}\n", args.lock.display()));
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// For a stdio server without `cwd` that failed: where it ran, when that
/// is not where init runs (the lock's directory, init running outside it).
fn where_it_ran(source: &Source, lock_path: &Path) -> Option<String> {
    match source {
        Source::Stdio { cwd: None, .. } if lock::implicit_cwd(lock_path, true).is_some() => {
            Some(format!(
                "it ran in the lock's directory {}, as verify runs it (init runs outside that \
                 directory; run init inside it, or give --cwd DIR)",
                lock::lock_dir(lock_path).display()
            ))
        }
        _ => None,
    }
}

/// What a lock entry records besides its pins: the handshake facts and
/// (unless `--no-snapshot`) each tool's canonical contract.
struct Extras {
    facts: contractpin::lock::ServerFacts,
    contracts: Option<Vec<(String, Vec<u8>)>>,
}

/// The server's digests and what its entry records besides them, from one
/// parse of the list (the snapshots come from the same tape).
fn digest_and_extras(
    fetched: &fetch::Fetched,
    limits: Limits,
    args: &InitArgs,
) -> Result<(ServerDigest, Extras), contractpin::Error> {
    let facts = fetched.facts.clone();
    if args.no_snapshot {
        let digests = super::digest::digest_list(&fetched.document, limits)?;
        let extras = Extras {
            facts,
            contracts: None,
        };
        return Ok((digests, extras));
    }
    let fields = contractpin::ListOptions {
        field_digests: true,
    };
    let (digests, contracts) =
        contractpin::digest_with_contracts(&fetched.document, &limits, fields)?;
    let extras = Extras {
        facts,
        contracts: Some(contracts),
    };
    Ok((digests, extras))
}

/// The extras as the lock may hold them: `serverInfo` with the secrets the
/// server was given masked (it is informational, outside every digest);
/// exit 2 when a tool name holds one (names are the lock's keys) or a
/// snapshot does (a snapshot must be the exact bytes its digest pins, so it
/// cannot be masked, and it is never stored).
fn without_secrets(
    name: &str,
    digests: &ServerDigest,
    mut extras: Extras,
    secrets: &Secrets,
) -> Result<Extras, Failure> {
    let names = digests.tools.iter().map(|t| t.name.as_str());
    if let Some(tool) = super::approve::secret_name(names, secrets) {
        return Err(Failure::usage(format!(
            "server {name:?}: tool {tool}: {}; nothing was written",
            super::approve::NAME_SECRET
        )));
    }
    let info = extras.facts.server_info.take();
    extras.facts.server_info = info.map(|i| secrets.mask_server_info(&i));
    let leaks = |(_, c): &&(String, Vec<u8>)| secrets.found_in(&String::from_utf8_lossy(c));
    if let Some((tool, _)) = extras.contracts.iter().flatten().find(leaks) {
        return Err(Failure::usage(format!(
            "server {name:?}: tool {}: {}; nothing was written",
            output::printable(&secrets.mask(tool)),
            super::approve::SNAPSHOT_SECRET
        )));
    }
    Ok(extras)
}

/// Puts the facts (instructions digest unless `--ignore-instructions`) and
/// the snapshots into a new entry; a tool whose contract is too deeply
/// nested for a snapshot, or too large for a lock once indented, is pinned
/// digest-only, with a warning.
fn record_extras(name: &str, server: &mut LockServer, extras: &Extras, args: &InitArgs) {
    server.set_facts(&extras.facts, !args.ignore_instructions);
    if let Some(contracts) = &extras.contracts {
        for tool in server.set_snapshots(contracts.clone()) {
            output::warning_line(&super::approve::no_snapshot(name, &tool));
        }
    }
}

fn exists(name: &str, lock: &Path) -> Failure {
    Failure::usage(format!(
        "server {name:?} is already pinned in {}; use --force to replace it",
        lock.display()
    ))
}

/// What the lock's secrets policy says about a source before it is
/// fetched: a URL carrying a literal credential in its query or path, or a
/// header mixing literal text into references, is refused; a literal header
/// value or URL user information is used for this fetch only (a warning).
fn secrets_policy(name: &str, source: &Source) -> Result<(), String> {
    let Source::Http { url, headers } = source else {
        return Ok(());
    };
    if let Some(what) = lock::url_credential(url) {
        return Err(format!(
            "the URL's {what} looks like a credential; write it as a ${{VAR}} reference \
             (for example ?token=${{API_TOKEN}}): the reference is stored, never the value"
        ));
    }
    if lock::url_has_userinfo(url) && lock::url_for_lock(url) != *url {
        output::warning_line(&format!(
            "server {name:?}: the URL's user information is used for this fetch only and is not \
             stored; verify will need it again (write https://${{USER}}:${{PASS}}@host/ to store references)"
        ));
    }
    for (header, value) in headers {
        match lock::classify_header(value) {
            HeaderValue::Template(_) => {}
            HeaderValue::Literal => output::warning_line(&format!(
                "server {name:?}: the literal value of header {header} is used for this fetch \
                 only and is not stored; verify will need it again (store a reference: \
                 --header '{header}: Bearer ${{VAR}}')"
            )),
            HeaderValue::Mixed => {
                return Err(format!(
                    "header {header}: a stored header value may hold only ${{VAR}} references, \
                     optionally after a scheme word ('Bearer ${{TOKEN}}'); literal text beside \
                     a reference would be stored"
                ))
            }
        }
    }
    Ok(())
}

/// Fails early (before any fetch) on a corrupt lock or a replacement without --force.
fn precheck(lock_path: &Path, targets: &[(String, Source)], force: bool) -> Result<(), Failure> {
    let bytes = match lock::read(lock_path) {
        Ok(b) => b,
        Err(ReadFileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(crate::input::read_failure(
                &e,
                &lock_path.display().to_string(),
            ))
        }
    };
    let lock =
        Lock::parse(&bytes).map_err(|e| Failure::usage(format!("{}: {e}", lock_path.display())))?;
    crate::output::warn_unknown_keys(&lock_path.display().to_string(), &lock);
    if !force {
        if let Some((name, _)) = targets.iter().find(|(n, _)| lock.servers.contains_key(n)) {
            return Err(exists(name, lock_path));
        }
    }
    Ok(())
}

/// The servers to pin, from the command line or an imported configuration,
/// as lock sources: a path given relative to the working directory is stored
/// relative to the lock's directory.
fn targets(args: &InitArgs) -> Result<Vec<(String, Source)>, Failure> {
    let sources = [
        !args.command.is_empty(),
        args.http.is_some(),
        args.file.is_some(),
        args.from.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if sources != 1 {
        return Err(Failure::usage(
            "init needs exactly one server source: `-- CMD ARGS...`, --http URL, --file DUMP or --from CONFIG",
        ));
    }
    let mut headers = BTreeMap::new();
    for h in &args.headers {
        let (k, v) = parse_header(h).map_err(Failure::usage)?;
        headers.insert(k, v);
    }
    let mut env = BTreeMap::new();
    for e in &args.env {
        let (k, v) = parse_env(e).map_err(Failure::usage)?;
        env.insert(k, v);
    }
    let stdio = !args.command.is_empty();
    let http_like = args.http.is_some() || args.from.is_some();
    if !headers.is_empty() && !http_like {
        return Err(Failure::usage("--header applies only to --http or --from"));
    }
    if !headers.is_empty() && args.from.is_some() && args.name.is_none() {
        return Err(Failure::usage(
            "--header with --from needs --name: headers go to one server only",
        ));
    }
    if (!env.is_empty() || args.cwd.is_some()) && !stdio {
        return Err(Failure::usage(
            "--env and --cwd apply only to a stdio server (`-- CMD ARGS...`)",
        ));
    }
    if let Some(config) = &args.from {
        let imported = config_import::import(config, args.name.as_deref())?;
        for w in &imported.warnings {
            output::warning_line(w);
        }
        return Ok(imported
            .servers
            .into_iter()
            .map(|s| {
                // --header (given with --name) overrides the config's.
                let extra: Vec<(String, String)> = headers.clone().into_iter().collect();
                let source = with_headers(s.source, &extra);
                (s.name, lock_relative(source, args))
            })
            .collect());
    }
    let name = args
        .name
        .clone()
        .ok_or_else(|| Failure::usage("init needs --name NAME (the server's name in the lock)"))?;
    if name.is_empty() {
        return Err(Failure::usage("--name must not be empty"));
    }
    let source = if stdio {
        Source::Stdio {
            command: args.command.clone(),
            env,
            cwd: args.cwd.as_ref().map(|c| c.to_string_lossy().into_owned()),
        }
    } else if let Some(url) = &args.http {
        Source::Http {
            url: url.clone(),
            headers,
        }
    } else {
        let path = args.file.as_ref().map(|p| p.to_string_lossy().into_owned());
        Source::File {
            path: path.unwrap_or_default(),
        }
    };
    Ok(vec![(name, lock_relative(source, args))])
}

/// `source` with its `cwd` or `path` (given relative to the working
/// directory) made relative to the lock's directory, as the lock stores it.
/// A stdio server without `cwd` runs where init runs, recorded relative to
/// the lock when that is inside the lock's directory (or allowed outside
/// it); otherwise in the lock's directory, as verify will run it.
fn lock_relative(source: Source, args: &InitArgs) -> Source {
    let lock_path = args.lock.as_path();
    match source {
        Source::Stdio { command, env, cwd } => Source::Stdio {
            command,
            env,
            cwd: match cwd {
                Some(c) => Some(lock::relative_to_lock(&c, lock_path)),
                None => lock::implicit_cwd(lock_path, args.allow_outside_paths),
            },
        },
        Source::File { path } => Source::File {
            path: lock::relative_to_lock(&path, lock_path),
        },
        http => http,
    }
}
