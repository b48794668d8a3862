//! The run-time proxy's decisions over whole sessions: the bytes drive a
//! session of client and server lines through one enforcer, and every line
//! it writes is held to the proxy's promises (no unpinned or drifted tool
//! and no other instructions reach the client in enforce mode, no call for
//! a tool not shown pinned reaches the server, every written line is one
//! line of strict JSON, observe mode forwards messages as received). The
//! generator and the checks: `src/proxy/fuzzing.rs`.
#![no_main]

// The checks are built only for cargo-fuzz, which sets `--cfg fuzzing`.
#[cfg(not(fuzzing))]
compile_error!("build the enforcer target with `cargo +nightly fuzz build enforcer` (it sets --cfg fuzzing), or RUSTFLAGS=\"--cfg fuzzing\"");

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    contractpin::proxy::fuzzing::check_session(data);
});
