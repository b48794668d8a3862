//! The SHA-256 floor: the exact messages the pipeline hashes, rebuilt through
//! the public API and checked digest by digest against the pipeline itself.

use contractpin::json::{self, Node};
use contractpin::{jcs, Context, Limits, ListOptions};

/// The messages of one payload.
pub struct Messages {
    /// One canonical contract per tool (what the tool digests hash).
    pub contracts: Vec<Vec<u8>>,
    /// One canonical member value per contract field (the field digests).
    pub fields: Vec<Vec<u8>>,
    /// The canonical server object `{name: "sha256:<hex>", ...}`.
    pub server: Vec<u8>,
}

impl Messages {
    /// Bytes hashed by the full pipeline.
    pub fn pipeline_bytes(&self) -> usize {
        self.contracts.iter().map(Vec::len).sum::<usize>()
            + self.fields.iter().map(Vec::len).sum::<usize>()
            + self.server.len()
    }

    /// Every message of the pipeline, in hashing order per tool.
    pub fn pipeline(&self) -> impl Iterator<Item = &[u8]> {
        self.contracts
            .iter()
            .chain(self.fields.iter())
            .chain(std::iter::once(&self.server))
            .map(Vec::as_slice)
    }

    /// Every message of the verify path.
    pub fn verify(&self) -> impl Iterator<Item = &[u8]> {
        self.contracts
            .iter()
            .chain(std::iter::once(&self.server))
            .map(Vec::as_slice)
    }
}

/// Rebuilds the hashed messages of a payload (a JSON-RPC tools/list response)
/// and checks each against the digests the pipeline reports.
pub fn messages(input: &[u8]) -> Messages {
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(input)];
    let tape = json::parse(input, &mut nodes, &Limits::DEFAULT).expect("payload parses");
    let list = tape
        .root()
        .get("result")
        .and_then(|r| r.get("tools"))
        .expect("payload is a JSON-RPC tools/list response");
    let mut contracts = Vec::new();
    let mut fields = Vec::new();
    let mut entries = Vec::from(&b"{"[..]);
    for (i, tool) in list.elements().enumerate() {
        let mut tool_text = Vec::new();
        jcs::write(&mut tool_text, tool).expect("tool canonicalizes");
        let contract = contractpin::tool_contract(&tool_text).expect("contract");
        let mut cn = vec![Node::EMPTY; json::scratch_needed(&contract)];
        let ct = json::parse(&contract, &mut cn, &Limits::DEFAULT).expect("contract parses");
        for (_, value) in ct.root().members_sorted() {
            let mut field = Vec::new();
            jcs::write(&mut field, value).expect("field");
            fields.push(field);
        }
        if i > 0 {
            entries.push(b',');
        }
        let name = tool.get("name").expect("name");
        jcs::write(&mut entries, name).expect("name");
        entries.extend_from_slice(b":\"");
        entries.extend_from_slice(
            &contractpin::Digest(contractpin::sha256::digest(&contract)).to_hex_prefixed(),
        );
        entries.push(b'"');
        contracts.push(contract);
    }
    entries.push(b'}');
    // The canonical writer puts the names in UTF-16 order.
    let server = contractpin::canonicalize(&entries).expect("server object");

    // Cross-check against the pipeline: every tool digest, field digest and
    // the server digest must be the SHA-256 of the rebuilt messages.
    let mut ctx = Context::new();
    let mut reported_fields = Vec::new();
    let mut reported_tools = Vec::new();
    let (server_digest, _) = ctx
        .digest_tools_list(
            input,
            ListOptions {
                field_digests: true,
            },
            |t| {
                reported_tools.push(t.digest);
                reported_fields.extend(t.fields.iter().map(|(_, d)| d));
            },
        )
        .expect("pipeline");
    assert_eq!(
        server_digest.0,
        contractpin::sha256::digest(&server),
        "server message"
    );
    let mut want_tools: Vec<_> = contracts
        .iter()
        .map(|c| contractpin::sha256::digest(c))
        .collect();
    let mut got_tools: Vec<_> = reported_tools.iter().map(|d| d.0).collect();
    want_tools.sort();
    got_tools.sort();
    assert_eq!(want_tools, got_tools, "contract messages");
    let mut want_fields: Vec<_> = fields
        .iter()
        .map(|f| contractpin::sha256::digest(f))
        .collect();
    let mut got_fields: Vec<_> = reported_fields.iter().map(|d| d.0).collect();
    want_fields.sort();
    got_fields.sort();
    assert_eq!(want_fields, got_fields, "field messages");
    Messages {
        contracts,
        fields,
        server,
    }
}
