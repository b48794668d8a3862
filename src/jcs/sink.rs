//! Where canonical bytes go: anything that implements [`Sink`].

use crate::sha256::{copy_short, Sha256};

/// A byte consumer. Writing never fails; bounded sinks record overflow.
pub trait Sink {
    /// Appends `bytes`.
    fn write(&mut self, bytes: &[u8]);
}

impl Sink for Sha256 {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.update(bytes)
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        (**self).write(bytes)
    }
}

/// Bytes a [`Staged`] sink gathers before it writes them on.
pub(crate) const STAGE_LEN: usize = 512;

/// Gathers the many short pieces a canonical writer emits and hands them to
/// `inner` in runs of up to [`STAGE_LEN`] bytes, so a hasher sees a few long
/// writes (whole blocks compressed straight from the buffer) instead of one
/// call per piece. [`Staged::flush`] must run before `inner` is read.
pub(crate) struct Staged<S> {
    pub inner: S,
    buf: [u8; STAGE_LEN],
    len: usize,
}

impl<S: Sink> Staged<S> {
    /// An empty stage in front of `inner`.
    #[inline(always)]
    pub fn new(inner: S) -> Self {
        Staged {
            inner,
            buf: [0; STAGE_LEN],
            len: 0,
        }
    }

    /// Writes the gathered bytes to `inner`.
    #[inline]
    pub fn flush(&mut self) {
        if self.len > 0 {
            self.inner.write(&self.buf[..self.len]);
            self.len = 0;
        }
    }
}

impl<S: Sink> Sink for Staged<S> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let at = self.len;
        if bytes.len() <= STAGE_LEN - at {
            copy_short(&mut self.buf[at..at + bytes.len()], bytes);
            self.len = at + bytes.len();
            return;
        }
        self.flush();
        if bytes.len() < STAGE_LEN {
            copy_short(&mut self.buf[..bytes.len()], bytes);
            self.len = bytes.len();
        } else {
            self.inner.write(bytes);
        }
    }
}

/// Writes every byte to two sinks (used to feed a tool hasher and a field
/// hasher from one pass).
pub struct Tee<A, B>(pub A, pub B);

impl<A: Sink, B: Sink> Sink for Tee<A, B> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
        self.1.write(bytes);
    }
}

/// A fixed caller buffer. Bytes past its end are counted but dropped, so
/// [`SliceSink::needed`] tells how large the buffer should have been.
pub struct SliceSink<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> SliceSink<'a> {
    /// A sink writing into `buf` from the start.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }

    /// Total bytes written (may exceed the buffer).
    pub fn needed(&self) -> usize {
        self.len
    }

    /// Whether everything fitted.
    pub fn fits(&self) -> bool {
        self.len <= self.buf.len()
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if end <= self.buf.len() {
            self.buf[self.len..end].copy_from_slice(bytes);
        }
        self.len = end;
    }
}

/// Counts bytes and drops them.
#[derive(Default)]
pub struct CountSink(pub usize);

impl Sink for CountSink {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

#[cfg(feature = "alloc")]
impl Sink for alloc::vec::Vec<u8> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes)
    }
}

/// A growable buffer for the canonical writer's many short pieces: a write
/// is a bounds check and a couple of word moves ([`copy_short`]) into room
/// kept (zeroed) past the end, where `Vec::extend_from_slice` makes a
/// `memcpy` call per piece. It only grows, so a reused one stops allocating,
/// and never past `CAP` bytes: a longer text sets [`GrowBuf::bytes`] to
/// `None` instead (the caller takes another way), so memory stays bounded.
#[cfg(feature = "alloc")]
#[derive(Debug, Default)]
pub(crate) struct GrowBuf<const CAP: usize> {
    buf: alloc::vec::Vec<u8>,
    len: usize,
    /// More than `CAP` bytes were written since the last clear.
    over: bool,
}

#[cfg(feature = "alloc")]
impl<const CAP: usize> GrowBuf<CAP> {
    /// Forgets the bytes written (the room stays).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.over = false;
    }

    /// Forgets the bytes written after the first `len` (which must have
    /// fitted), as if they had never been written.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len <= self.len.min(CAP) {
            self.len = len;
            self.over = false;
        }
    }

    /// How many bytes are written since the last [`GrowBuf::clear`] (a
    /// write refused past `CAP` adds none).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The bytes written since the last [`GrowBuf::clear`], or `None` when
    /// they did not fit in `CAP`.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        (!self.over).then(|| &self.buf[..self.len])
    }

    /// Makes room for `end` bytes (at least double, at least 4 KiB, at most
    /// `CAP`); `false` when `end` is over `CAP`. (Once over, later short
    /// writes may still land in the room; [`GrowBuf::bytes`] ignores them.)
    #[cold]
    fn grow(&mut self, end: usize) -> bool {
        if end > CAP {
            return false;
        }
        let room = end.max(2 * self.buf.len()).max(4096).min(CAP);
        self.buf.resize(room, 0);
        true
    }
}

#[cfg(feature = "alloc")]
impl<const CAP: usize> Sink for GrowBuf<CAP> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if end > self.buf.len() && !self.grow(end) {
            self.over = true;
            return;
        }
        copy_short(&mut self.buf[self.len..end], bytes);
        self.len = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records each write it gets, to see the runs a `Staged` hands on.
    struct Writes<'a> {
        bytes: SliceSink<'a>,
        calls: usize,
        longest: usize,
    }

    impl Sink for Writes<'_> {
        fn write(&mut self, bytes: &[u8]) {
            self.bytes.write(bytes);
            self.calls += 1;
            self.longest = self.longest.max(bytes.len());
        }
    }

    #[test]
    fn staged_passes_every_byte_on_in_order_whatever_the_piece_sizes() {
        // Piece sizes around every edge: empty, short, the stage's length and
        // one either side of it, and pieces longer than a stage.
        let sizes = [0, 1, 3, 17, 511, 512, 513, 64, 2000, 5, 1023, 1, 0, 700];
        let mut want = [0u8; 8192];
        let mut out = [0u8; 8192];
        let mut n = 0;
        let mut staged = Staged::new(Writes {
            bytes: SliceSink::new(&mut out),
            calls: 0,
            longest: 0,
        });
        for (i, &size) in sizes.iter().cycle().take(3 * sizes.len()).enumerate() {
            let piece: [u8; 2000] = core::array::from_fn(|j| (i * 31 + j * 7) as u8);
            if n + size > want.len() {
                break;
            }
            want[n..n + size].copy_from_slice(&piece[..size]);
            n += size;
            staged.write(&piece[..size]);
        }
        staged.flush();
        staged.flush();
        let Writes {
            bytes,
            calls,
            longest,
        } = staged.inner;
        assert_eq!(bytes.needed(), n);
        assert!(bytes.fits());
        assert_eq!(out[..n], want[..n]);
        // Runs, not pieces: fewer calls than pieces, and long pieces whole.
        assert!(calls < 3 * sizes.len(), "{calls}");
        assert_eq!(longest, 2000);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn grow_buf_keeps_what_fits_and_refuses_more_than_its_cap() {
        let mut b = GrowBuf::<10_000>::default();
        let mut want = std::vec::Vec::new();
        for i in 0..700u32 {
            let piece = &b"0123456789abcdefghij"[..(i % 21) as usize];
            b.write(piece);
            want.extend_from_slice(piece);
        }
        assert_eq!(b.bytes(), Some(&want[..]));
        // Past the cap: no bytes, and none after either, until cleared.
        b.write(&[b'x'; 9_000]);
        assert_eq!(b.bytes(), None);
        b.write(b"y");
        assert_eq!(b.bytes(), None);
        b.clear();
        b.write(b"again");
        assert_eq!(b.bytes(), Some(&b"again"[..]));
        // Exactly the cap fits.
        b.clear();
        b.write(&[b'z'; 10_000]);
        assert_eq!(b.bytes().map(<[u8]>::len), Some(10_000));
    }
}
