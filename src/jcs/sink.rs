//! Where canonical bytes go: anything that implements [`Sink`].

use crate::sha256::Sha256;

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
