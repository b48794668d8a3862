//! `contractpin init`: fetch servers and pin them in the lock.

use crate::abi::{self, DocLimits};
use crate::args::InitArgs;
use crate::fail::{CliResult, Failure, EXIT_OK};
use crate::input::read_document;
use crate::lockfile;
use crate::pretty::Json;

/// Runs `init`.
pub fn run(args: &InitArgs) -> CliResult {
    let name = args
        .name
        .clone()
        .ok_or_else(|| Failure::usage("init needs --name NAME"))?;
    let file = args
        .file
        .as_ref()
        .ok_or_else(|| Failure::usage("only --file is supported yet"))?;
    let limits = DocLimits::default();
    let bytes =
        read_document(Some(file), limits.max_input).map_err(|f| Failure::server(f.message))?;
    let server = abi::digest_tools_list(&bytes, &limits)
        .map_err(|e| Failure::server(format!("server {name}: invalid tools list: {e}")))?;
    let mut servers = lockfile::read_servers(&args.lock)?;
    if servers.iter().any(|(n, _)| *n == name) && !args.force {
        return Err(Failure::usage(format!(
            "server {name} is already in {}; use --force to replace it",
            args.lock.display()
        )));
    }
    servers.retain(|(n, _)| *n != name);
    let entry = super::digest::server_entry_json(
        &server,
        vec![
            ("transport".into(), Json::Str("file".into())),
            (
                "path".into(),
                Json::Str(file.to_string_lossy().into_owned()),
            ),
        ],
    );
    servers.push((name, entry));
    lockfile::write(&args.lock, servers)?;
    Ok(EXIT_OK)
}
