//! How the tools of a list are hashed: one at a time as each contract is
//! written ([`OneAtATime`], caller scratch, no allocator), or in batches
//! ([`Batch`], a reused [`Context`](crate::Context)'s buffers): contracts
//! written back to back into one buffer, then every contract and field
//! value of the batch hashed at once by [`sha256::digest_many`] (sixteen
//! AVX-512 lanes, SHA-NI's four streams, or two streams, by CPU).
//!
//! Both report every tool, in the order given, with the same digests, and
//! stop at the same error: a batch reports the tools before a failing one,
//! then the error. Only which blocks share a compression call differs.

use super::tool::{digest_tool, Projection};
#[cfg(feature = "alloc")]
use super::tool::{emit_contract, ContractOut};
#[cfg(feature = "alloc")]
use super::Field;
use super::FieldDigests;
use crate::digest::Digest;
use crate::error::Error;
use crate::json::Node;

/// One tool's result, handed to the list's emitter: the tape index of its
/// name node, its digests and the byte offset of its object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Done {
    pub name: u32,
    pub digest: Digest,
    pub fields: FieldDigests,
    pub offset: usize,
}

/// A way of hashing the tools of one list, in the order given.
pub(crate) trait ToolHasher {
    /// Hashes (or queues) the tool projected by `projection`, whose name node
    /// is `name`; `emit` gets each finished tool, in order. After an error
    /// the caller flushes (the tools before it are reported), then reports it.
    fn add(
        &mut self,
        input: &[u8],
        nodes: &[Node],
        canon: &[u8],
        tool: (&Projection, u32),
        fields: bool,
        emit: &mut dyn FnMut(Done),
    ) -> Result<(), Error>;

    /// Emits every queued tool.
    fn flush(&mut self, emit: &mut dyn FnMut(Done));
}

/// Each tool hashed as its contract is written (no buffer at all).
pub(crate) struct OneAtATime;

impl ToolHasher for OneAtATime {
    fn add(
        &mut self,
        input: &[u8],
        nodes: &[Node],
        canon: &[u8],
        (projection, name): (&Projection, u32),
        fields: bool,
        emit: &mut dyn FnMut(Done),
    ) -> Result<(), Error> {
        let (digest, fields) = digest_tool(input, nodes, canon, projection, fields)?;
        emit(Done {
            name,
            digest,
            fields,
            offset: projection.offset,
        });
        Ok(())
    }

    fn flush(&mut self, _: &mut dyn FnMut(Done)) {}
}

/// The most contract bytes a [`Batch`] holds (512 KiB, about 150 typical
/// tools; with 128 KiB, about 30 contracts on the verify path, the sixteen
/// lanes had too few messages to finish together, and verify M took 1.9%
/// longer); a longer contract is hashed alone, so memory stays bounded.
#[cfg(feature = "alloc")]
pub(crate) const BATCH_CAP: usize = 512 << 10;

/// The most tools in one batch (bounds the span lists).
#[cfg(feature = "alloc")]
const BATCH_TOOLS: usize = 256;

/// A queued tool: where its messages are in the batch's span list.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug)]
struct Queued {
    name: u32,
    offset: usize,
    /// Index of the contract's span; the field values follow it.
    first: usize,
    /// Which fields have a span (in `Field` order after the contract's).
    fields: [bool; 5],
}

/// Reused buffers for hashing a list's tools in batches.
#[cfg(feature = "alloc")]
#[derive(Debug, Default)]
pub(crate) struct Batch {
    buf: crate::jcs::GrowBuf<BATCH_CAP>,
    /// Messages: byte ranges of `buf` (each contract, then its field values).
    spans: alloc::vec::Vec<(u32, u32)>,
    queued: alloc::vec::Vec<Queued>,
    digests: alloc::vec::Vec<[u8; 32]>,
    /// The order the messages are dealt to the hashing lanes in
    /// ([`sha256::many::deal_order`](crate::sha256::many::deal_order)), and
    /// their digests in that order.
    order: alloc::vec::Vec<u32>,
    dealt: alloc::vec::Vec<[u8; 32]>,
}

/// A contract written into the batch buffer, noting the range of each
/// member value.
#[cfg(feature = "alloc")]
struct Recorder<'b> {
    buf: &'b mut crate::jcs::GrowBuf<BATCH_CAP>,
    value_start: usize,
    values: [Option<(usize, usize)>; 5],
}

#[cfg(feature = "alloc")]
impl ContractOut for Recorder<'_> {
    #[inline]
    fn frame(&mut self, bytes: &[u8]) {
        crate::jcs::Sink::write(self.buf, bytes);
        self.value_start = self.buf.len();
    }
    #[inline]
    fn value(&mut self, bytes: &[u8]) {
        crate::jcs::Sink::write(self.buf, bytes)
    }
    #[inline]
    fn end_value(&mut self, field: Field) {
        self.values[field as usize] = Some((self.value_start, self.buf.len()));
    }
}

/// A contract written into a batch: where it starts and where each member
/// value is.
#[cfg(feature = "alloc")]
type Written = (usize, [Option<(usize, usize)>; 5]);

#[cfg(feature = "alloc")]
impl Batch {
    /// Writes the contract after the queued ones; `Ok(None)` when it does
    /// not fit. On an error or when it does not fit, the buffer is left as
    /// it was.
    fn write(
        &mut self,
        input: &[u8],
        nodes: &[Node],
        canon: &[u8],
        projection: &Projection,
    ) -> Result<Option<Written>, Error> {
        let start = self.buf.len();
        let mut out = Recorder {
            buf: &mut self.buf,
            value_start: start,
            values: [None; 5],
        };
        let written = emit_contract(&mut out, input, nodes, canon, projection);
        let values = out.values;
        let fits = self.buf.bytes().is_some();
        if written.is_err() || !fits {
            self.buf.truncate(start);
        }
        written?;
        Ok(fits.then_some((start, values)))
    }

    /// Queues the contract written at `start` (it ends at the buffer's end)
    /// and, when `fields` is set, its member values as messages of their own.
    fn queue(&mut self, name: u32, offset: usize, (start, values): Written, fields: bool) {
        let first = self.spans.len();
        self.spans.push((start as u32, self.buf.len() as u32));
        let mut has = [false; 5];
        if fields {
            for f in Field::ALL {
                if let Some((s, e)) = values[f as usize] {
                    self.spans.push((s as u32, e as u32));
                    has[f as usize] = true;
                }
            }
        }
        self.queued.push(Queued {
            name,
            offset,
            first,
            fields: has,
        });
    }
}

#[cfg(feature = "alloc")]
impl ToolHasher for Batch {
    fn add(
        &mut self,
        input: &[u8],
        nodes: &[Node],
        canon: &[u8],
        (projection, name): (&Projection, u32),
        fields: bool,
        emit: &mut dyn FnMut(Done),
    ) -> Result<(), Error> {
        let alone = |emit: &mut dyn FnMut(Done)| {
            // Longer than the whole buffer: hashed as it is written.
            OneAtATime.add(input, nodes, canon, (projection, name), fields, emit)
        };
        let written = match self.write(input, nodes, canon, projection)? {
            Some(w) => w,
            None if self.queued.is_empty() => return alone(emit),
            None => {
                // The buffer is full: hash it, then write this contract again.
                self.flush(emit);
                match self.write(input, nodes, canon, projection)? {
                    Some(w) => w,
                    None => return alone(emit),
                }
            }
        };
        self.queue(name, projection.offset, written, fields);
        if self.queued.len() == BATCH_TOOLS {
            self.flush(emit);
        }
        Ok(())
    }

    fn flush(&mut self, emit: &mut dyn FnMut(Done)) {
        let Some(buf) = self.buf.bytes() else {
            return;
        };
        crate::sha256::many::deal_order(&self.spans, &mut self.order);
        self.dealt.clear();
        self.dealt.resize(self.spans.len(), [0; 32]);
        let messages = crate::sha256::many::Spans {
            buf,
            spans: &self.spans,
            order: &self.order,
        };
        crate::sha256::digest_many(&messages, &mut self.dealt);
        self.digests.clear();
        self.digests.resize(self.spans.len(), [0; 32]);
        for (&i, digest) in self.order.iter().zip(&self.dealt) {
            self.digests[i as usize] = *digest;
        }
        for q in &self.queued {
            let mut fields = FieldDigests::default();
            let mut next = q.first + 1;
            for f in Field::ALL {
                if q.fields[f as usize] {
                    fields.0[f as usize] = Some(Digest(self.digests[next]));
                    next += 1;
                }
            }
            emit(Done {
                name: q.name,
                digest: Digest(self.digests[q.first]),
                fields,
                offset: q.offset,
            });
        }
        self.discard();
    }
}

#[cfg(feature = "alloc")]
impl Batch {
    /// Forgets the queued tools, unhashed.
    pub(crate) fn discard(&mut self) {
        self.buf.clear();
        self.spans.clear();
        self.queued.clear();
    }
}
