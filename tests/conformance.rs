//! Every conformance vector (vectors/vectors.tsv, generated with
//! vectors/vectors.json by the independent Python reference in
//! vectors/make_vectors.py) reproduces exactly: canonical bytes, digest,
//! field digests, per-tool digests, or the error kind.

#[path = "support/tools.rs"]
mod tools;
#[path = "support/vectors_tsv.rs"]
mod vectors_tsv;
use std::process::Command;
use vectors_tsv::{unhex, vectors, Vector};

use contractpin::{
    canonicalize, digest_tools_list, tool_contract, tool_digest, Digest, ListOptions,
};

fn sha(bytes: &[u8]) -> String {
    Digest(contractpin::sha256::digest(bytes)).to_string()
}

/// One tool's entry in a tools-list vector's `extra` column: the hex of its
/// decoded name, its digest and its field digests.
fn tool_extra(
    name: &str,
    digest: contractpin::Digest,
    fields: &contractpin::contract::FieldDigests,
) -> String {
    let hexname: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    let fields: String = fields
        .iter()
        .map(|(f, d)| format!(",{}={d}", f.name()))
        .collect();
    format!("{hexname}={digest}{fields}")
}

/// Runs one vector; `Err` describes the mismatch.
fn check(v: &Vector) -> Result<(), String> {
    let outcome: Result<(Vec<u8>, String), contractpin::Error> = match v.mode.as_str() {
        "value" => canonicalize(&v.input).map(|c| (c, "-".to_string())),
        "tool" => tool_contract(&v.input).and_then(|c| {
            let d = tool_digest(&v.input)?;
            let (_, fields) = contractpin::Context::new().tool_digest(&v.input)?;
            assert_eq!(
                d.to_string(),
                sha(&c),
                "{}: tool digest is the hash of the contract",
                v.name
            );
            let extra: Vec<String> = fields
                .iter()
                .map(|(f, d)| format!("{}={d}", f.name()))
                .collect();
            Ok((c, extra.join(";")))
        }),
        "tools-list" => digest_tools_list(&v.input).map(|s| {
            let mut object = b"{".to_vec();
            let mut extra = Vec::new();
            for (i, t) in s.tools.iter().enumerate() {
                if i > 0 {
                    object.push(b',');
                }
                contractpin::jcs::write_str(&mut object, &t.name);
                object.extend_from_slice(format!(":\"{}\"", t.digest).as_bytes());
                extra.push(tool_extra(&t.name, t.digest, &t.fields));
            }
            object.push(b'}');
            assert_eq!(
                s.digest.to_string(),
                sha(&object),
                "{}: server digest is the hash of the server object",
                v.name
            );
            let extra = if extra.is_empty() {
                "-".to_string()
            } else {
                extra.join(";")
            };
            (object, extra)
        }),
        // The canonical bytes of the JSON string; the digest is then checked
        // against `instructions_digest` of the generator's decoded text.
        "instructions" => canonicalize(&v.input).map(|c| (c, v.extra.clone())),
        other => return Err(format!("unknown mode {other}")),
    };
    match (outcome, v.expected.strip_prefix('!')) {
        (Ok((canon, extra)), None) => {
            let hex: String = canon.iter().map(|b| format!("{b:02x}")).collect();
            if hex != v.expected {
                return Err(format!(
                    "canonical bytes differ:\n got  {}\n want {}",
                    String::from_utf8_lossy(&canon),
                    String::from_utf8_lossy(&unhex(&v.expected))
                ));
            }
            if sha(&canon) != v.digest {
                return Err(format!("digest {} != {}", sha(&canon), v.digest));
            }
            if extra != v.extra {
                return Err(format!(
                    "field/tool digests differ:\n got  {extra}\n want {}",
                    v.extra
                ));
            }
            Ok(())
        }
        (Err(e), Some(kind)) if e.kind().name() == kind => Ok(()),
        (Err(e), Some(kind)) => Err(format!(
            "rejected as {} (at byte {}), want {kind}",
            e.kind().name(),
            e.offset()
        )),
        (Err(e), None) => Err(format!("rejected: {e}")),
        (Ok(_), Some(kind)) => Err(format!("accepted, want rejection {kind}")),
    }
}

#[test]
fn every_vector_reproduces() {
    let all = vectors();
    assert!(all.len() >= 150, "only {} vectors", all.len());
    assert!(all.iter().any(|v| v.name == "key-order-utf16"));
    let failures: Vec<String> = all
        .iter()
        .filter_map(|v| check(v).err().map(|e| format!("{}: {e}", v.name)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
    println!("{} vectors reproduced", all.len());
}

/// `instructions_digest` of each instructions vector's decoded text (the
/// generator's, in the `extra` column as hex) is the vector's digest.
#[test]
fn instructions_digest_matches_the_instructions_vectors() {
    let mut checked = 0;
    for v in vectors().iter().filter(|v| v.mode == "instructions") {
        if v.expected.starts_with('!') {
            continue;
        }
        let text = String::from_utf8(unhex(&v.extra)).expect("utf-8 text");
        let got = contractpin::instructions_digest(&text).to_string();
        assert_eq!(got, v.digest, "{}", v.name);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} instructions vectors checked");
}

#[test]
#[cfg_attr(miri, ignore = "starts python3, which Miri cannot")]
fn committed_vectors_match_the_generator() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let out = Command::new("python3")
        .args(["vectors/make_vectors.py", "--check"])
        .output()
        .expect("python3 must be installed to check the vectors");
    assert!(
        out.status.success(),
        "vectors are stale or the generator failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The vector's tool names and tool digests, in canonical name order (the
/// `extra` column: `hexname=digest,field=digest...;...`).
fn vector_tools(v: &Vector) -> Vec<(String, String)> {
    if v.extra == "-" {
        return Vec::new();
    }
    v.extra
        .split(';')
        .map(|t| {
            let (hexname, rest) = t.split_once('=').expect("name=digest");
            let digest = rest.split(',').next().expect("digest");
            let name = String::from_utf8(unhex(hexname)).expect("utf-8 name");
            (name, digest.to_string())
        })
        .collect()
}

/// `tool_contracts` yields, for every accepted tools-list vector, each tool
/// in canonical name order with a contract whose hash is the generator's
/// tool digest; `digest_with_contracts` gives the same contracts beside the
/// vector's server digest.
#[test]
fn tool_contracts_hash_to_the_vector_tool_digests() {
    let mut checked = 0;
    for v in vectors().iter().filter(|v| v.mode == "tools-list") {
        let contracts = contractpin::tool_contracts(&v.input, &Default::default());
        if v.expected.starts_with('!') {
            assert!(contracts.is_err(), "{}: accepted, want rejection", v.name);
            continue;
        }
        let contracts = contracts.unwrap_or_else(|e| panic!("{}: {e}", v.name));
        let got: Vec<(String, String)> =
            contracts.iter().map(|(n, c)| (n.clone(), sha(c))).collect();
        assert_eq!(got, vector_tools(v), "{}", v.name);
        // The same contracts, and the vector's digests, from one parse.
        let fields = ListOptions {
            field_digests: true,
        };
        let (server, same) =
            contractpin::digest_with_contracts(&v.input, &Default::default(), fields).unwrap();
        assert_eq!(same, contracts, "{}", v.name);
        assert_eq!(server.digest.to_string(), v.digest, "{}", v.name);
        assert_eq!(server, digest_tools_list(&v.input).unwrap(), "{}", v.name);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} tools-list vectors checked");
}

/// The verify path (tool digests only, which a reused `Context` hashes two
/// tools at a time) gives every tools-list vector's tool and server digests,
/// or its rejection kind; the one-tool-at-a-time caller-scratch API agrees.
#[test]
fn the_verify_path_gives_the_vector_digests() {
    let mut ctx = contractpin::Context::new();
    let mut paired = 0;
    for v in vectors().iter().filter(|v| v.mode == "tools-list") {
        let mut tools = Vec::new();
        let got = ctx.digest_tools_list(&v.input, ListOptions::default(), |t| {
            tools.push((t.name.to_owned_string(), t.digest.to_string()));
        });
        let mut scratch =
            vec![contractpin::json::Node::EMPTY; contractpin::json::scratch_needed(&v.input)];
        let alone = contractpin::digest_tools_list_with(
            &v.input,
            &mut scratch,
            &Default::default(),
            ListOptions::default(),
            |_| {},
        );
        if let Some(kind) = v.expected.strip_prefix('!') {
            let e = got.expect_err(&v.name);
            assert_eq!(e.kind().name(), kind, "{}", v.name);
            assert_eq!(alone.expect_err(&v.name), e, "{}", v.name);
            continue;
        }
        let (digest, count) = got.unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(digest.to_string(), v.digest, "{}", v.name);
        assert_eq!(alone.unwrap().digest, digest, "{}", v.name);
        assert_eq!(tools, vector_tools(v), "{}", v.name);
        assert_eq!(count, tools.len());
        paired += usize::from(count >= 2);
    }
    assert!(paired >= 5, "only {paired} vectors with two or more tools");
}

/// A reused `Context` hashes its tools in batches of at most 512 KiB of
/// contracts: a contract longer than that is hashed alone (the ~690 KB one
/// here), and one that does not fit beside the queued ones starts the next
/// batch (the ~460 KB one after the ~310 KB one). Both ways, with and
/// without field digests, give `vectors/reference.py`'s digests.
#[test]
#[cfg_attr(miri, ignore = "starts python3, which Miri cannot")]
fn batches_give_the_reference_digests_for_tools_of_every_size() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let desc = |i: usize, len: usize| format!("tool {i} ") + &"d\\u00e9scription ".repeat(len / 17);
    let sizes = [
        40, 400_000, 90, 600_000, 10, 900_000, 5_000, 70_000, 80_000, 60_000, 20,
    ];
    let list = format!(
        r#"{{"tools":[{}]}}"#,
        sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| format!(
                r#"{{"name":"t{i}","description":"{}","inputSchema":{{"type":"object"}}}}"#,
                desc(i, n)
            ))
            .collect::<Vec<_>>()
            .join(",")
    );
    let script = "import sys, hashlib; sys.path.insert(0, 'vectors'); import reference\n\
        server, tools = reference.tools_list(sys.stdin.buffer.read())\n\
        print('sha256:' + hashlib.sha256(server).hexdigest())\n\
        [print(n, t['digest']) for n, t in tools.items()]\n\
        print('--')\n\
        [print(n, f, d) for n, t in tools.items() for f, d in t['fields'].items()]";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "reference.py failed");
    let out = String::from_utf8(out.stdout).unwrap();
    let (want_tools, want_fields) = out.split_once("--\n").expect("two parts");
    let want_tools = want_tools.to_string();
    let want = format!("{want_tools}{want_fields}");

    let mut ctx = contractpin::Context::new();
    for field_digests in [false, true, false, true] {
        // Twice each: the second run reuses buffers that the first one capped.
        let mut got = String::new();
        let mut tools = Vec::new();
        let mut fields = String::new();
        let options = ListOptions { field_digests };
        let (digest, _) = ctx
            .digest_tools_list(list.as_bytes(), options, |t| {
                tools.push(format!("{} {}\n", t.name.to_owned_string(), t.digest));
                for (f, d) in t.fields.iter() {
                    fields.push_str(&format!("{} {} {d}\n", t.name.to_owned_string(), f.name()));
                }
            })
            .unwrap();
        got.push_str(&format!("{digest}\n"));
        got.extend(tools);
        got.push_str(&fields);
        assert_eq!(&got, if field_digests { &want } else { &want_tools });
    }
}

/// A reused `Context` with field digests (each contract written to a buffer,
/// then the tool and field digests hashed from it as two streams) gives every
/// tools-list vector's tool and field digests, or its rejection kind.
#[test]
fn the_context_pipeline_gives_the_vector_field_digests() {
    let mut ctx = contractpin::Context::new();
    let fields = ListOptions {
        field_digests: true,
    };
    let mut checked = 0;
    for v in vectors().iter().filter(|v| v.mode == "tools-list") {
        let mut extra = Vec::new();
        let got = ctx.digest_tools_list(&v.input, fields, |t| {
            extra.push(tool_extra(&t.name.to_owned_string(), t.digest, &t.fields));
        });
        if let Some(kind) = v.expected.strip_prefix('!') {
            assert_eq!(got.expect_err(&v.name).kind().name(), kind, "{}", v.name);
            continue;
        }
        let (digest, _) = got.unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(digest.to_string(), v.digest, "{}", v.name);
        let extra = if extra.is_empty() {
            "-".to_string()
        } else {
            extra.join(";")
        };
        assert_eq!(extra, v.extra, "{}", v.name);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} tools-list vectors checked");
}
