//! Memory advice for the large, short-lived buffers of a one-shot process
//! (`contractpin digest FILE`): the input, the parser's node store and the
//! one-pass canonical output.
//!
//! A 4 MB tools/list and its ~4 MB of canonical bytes (or tape nodes) are
//! touched once each; with 4 KiB pages that is about 2,000 page faults, a
//! large part of the whole process's time. [`advise_huge_pages`] asks Linux
//! for transparent huge pages (`madvise(MADV_HUGEPAGE)`, honoured when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `madvise` or `always`)
//! over the 2 MiB-aligned part of a buffer's allocation before it is
//! written, so that part faults once per 2 MiB. The allocator does not
//! align large buffers to 2 MiB, so up to a huge page's worth at each end
//! stays in small pages; [`prefault`] maps a buffer that is about to be
//! written in full in one system call (`MADV_POPULATE_WRITE`, Linux 5.14)
//! instead of one trap per small page. Elsewhere, for small buffers, or
//! when the kernel refuses, both do nothing: they are advice, and they
//! never change what the memory holds.
//!
//! [`FreshBuf`] goes one step further for a buffer the process fills once
//! (the input file): its own anonymous mapping, aligned to 2 MiB so that
//! every byte of it is on huge pages, prefaulted in one call.

use core::ops::{Deref, DerefMut};
use std::vec::Vec;

/// Size and alignment of an x86-64 / AArch64 (4 KiB granule) huge page.
const HUGE_PAGE: usize = 2 << 20;

/// Advises huge pages for the whole allocation of `buf` (its length and its
/// spare capacity), where it covers at least one aligned 2 MiB page.
pub fn advise_huge_pages<T>(buf: &mut Vec<T>) {
    if let Some((addr, len)) = whole_units(buf, 0..usize::MAX, HUGE_PAGE) {
        advise(addr, len);
    }
}

/// The address and length of the `unit`-aligned whole units of `buf`'s
/// allocation that lie inside its byte range `bytes` (clamped to the
/// allocation); `None` when there is none.
fn whole_units<T>(
    buf: &mut Vec<T>,
    bytes: core::ops::Range<usize>,
    unit: usize,
) -> Option<(usize, usize)> {
    let start = buf.as_mut_ptr() as usize;
    let size = buf.capacity().saturating_mul(core::mem::size_of::<T>());
    let (from, to) = (bytes.start.min(size), bytes.end.min(size));
    let first = start.saturating_add(from).div_ceil(unit) * unit;
    let end = (start.saturating_add(to) / unit) * unit;
    (end > first).then(|| (first, end - first))
}

/// Faults in, in one system call, the pages of `buf`'s allocation that
/// lie wholly inside the byte range `bytes` of it (clamped to the
/// allocation), for a buffer that is about to be written there: the input
/// a file is read into, the canonical output of a document. The memory is
/// the same either way (zeroed by the kernel); only the traps are saved.
/// Use it after [`advise_huge_pages`], so the aligned part is mapped in
/// huge pages.
pub fn prefault<T>(buf: &mut Vec<T>, bytes: core::ops::Range<usize>) {
    if let Some((addr, len)) = whole_units(buf, bytes, PAGE) {
        populate(addr, len);
    }
}

/// The alignment that puts a buffer of `len` bytes wholly on huge pages:
/// a huge page's when it spans at least one, else none (1).
pub fn alignment_for(len: usize) -> usize {
    if len >= HUGE_PAGE {
        HUGE_PAGE
    } else {
        1
    }
}

/// The small page size that [`prefault`] rounds to (4 KiB on x86-64 and
/// most AArch64 kernels; on a larger granule the call still only covers
/// whole pages inside the buffer, or is refused and ignored).
const PAGE: usize = 4096;

#[cfg(all(target_os = "linux", not(miri)))]
fn populate(addr: usize, len: usize) {
    // SAFETY: `[addr, addr + len)` lies inside the allocation of a live
    // `Vec` that the caller holds mutably, and is page aligned.
    // MADV_POPULATE_WRITE maps those pages writable as a first write would;
    // fresh anonymous pages read as zero either way, and pages already
    // mapped keep their contents. A kernel without it (before 5.14) refuses
    // with EINVAL, which is ignored: the pages then fault as they are used.
    let _ = unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE) };
}

/// Elsewhere (and under Miri): nothing to prefault.
#[cfg(not(all(target_os = "linux", not(miri))))]
fn populate(_: usize, _: usize) {}

#[cfg(all(target_os = "linux", not(miri)))]
fn advise(addr: usize, len: usize) {
    // SAFETY: `[addr, addr + len)` lies inside the allocation of a live
    // `Vec` that the caller holds mutably, and is page aligned.
    // MADV_HUGEPAGE only changes how the kernel backs those pages; it never
    // changes their contents or makes them inaccessible. A failure (an old
    // kernel, THP disabled) leaves everything as it was, so it is ignored.
    let _ = unsafe { libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
}

/// Elsewhere (and under Miri, which has no `madvise`): no advice.
#[cfg(not(all(target_os = "linux", not(miri))))]
fn advise(_: usize, _: usize) {}

/// A zeroed byte buffer of a fixed length, for a one-shot process that is
/// about to write all of it (the CLI reads its input file into one).
///
/// At 2 MiB and more on Linux it is an anonymous mapping of its own,
/// aligned to 2 MiB and rounded up to whole huge pages, advised onto them
/// and prefaulted ([`prefault`]): the allocator's buffers start a few bytes
/// past a page, so up to a huge page's worth at each end of one stays in
/// 4 KiB pages, while here every byte is on huge pages where the kernel
/// gives them (a 3.9 MB buffer zeroed and written in about 0.4 ms instead
/// of 1.0 ms on the machine of docs/PERFORMANCE.md). Smaller, elsewhere, or
/// when the mapping fails, it is a zeroed `Vec`, prefaulted. Either way it
/// reads as `len` zero bytes until written, and [`FreshBuf::truncate`] only shortens
/// what it shows.
pub struct FreshBuf {
    store: Store,
    /// The bytes shown (at most the store's length).
    len: usize,
}

enum Store {
    Heap(Vec<u8>),
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped(Mapping),
}

impl FreshBuf {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> FreshBuf {
        #[cfg(all(target_os = "linux", not(miri)))]
        if len >= HUGE_PAGE {
            if let Some(map) = Mapping::new(len) {
                return FreshBuf {
                    store: Store::Mapped(map),
                    len,
                };
            }
        }
        let mut heap = std::vec![0; len];
        prefault(&mut heap, 0..len);
        FreshBuf {
            store: Store::Heap(heap),
            len,
        }
    }

    /// Shows only the first `len` bytes (no-op when it shows fewer).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Whether it is a mapping of its own (for tests and benchmarks).
    pub fn is_mapped(&self) -> bool {
        !matches!(self.store, Store::Heap(_))
    }
}

impl From<Vec<u8>> for FreshBuf {
    fn from(v: Vec<u8>) -> FreshBuf {
        let len = v.len();
        FreshBuf {
            store: Store::Heap(v),
            len,
        }
    }
}

impl Deref for FreshBuf {
    type Target = [u8];
    // (Off Linux the store has one variant, so the match cannot fail.)
    #[cfg_attr(
        not(all(target_os = "linux", not(miri))),
        allow(clippy::infallible_destructuring_match)
    )]
    fn deref(&self) -> &[u8] {
        let all: &[u8] = match &self.store {
            Store::Heap(v) => v,
            #[cfg(all(target_os = "linux", not(miri)))]
            Store::Mapped(m) => m.bytes(),
        };
        &all[..self.len]
    }
}

impl DerefMut for FreshBuf {
    // (Off Linux the store has one variant, so the match cannot fail.)
    #[cfg_attr(
        not(all(target_os = "linux", not(miri))),
        allow(clippy::infallible_destructuring_match)
    )]
    fn deref_mut(&mut self) -> &mut [u8] {
        let all: &mut [u8] = match &mut self.store {
            Store::Heap(v) => v,
            #[cfg(all(target_os = "linux", not(miri)))]
            Store::Mapped(m) => m.bytes_mut(),
        };
        &mut all[..self.len]
    }
}

impl core::fmt::Debug for FreshBuf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FreshBuf")
            .field("len", &self.len)
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

/// An anonymous private mapping of whole huge pages at a 2 MiB-aligned
/// address, unmapped on drop.
#[cfg(all(target_os = "linux", not(miri)))]
struct Mapping {
    ptr: core::ptr::NonNull<u8>,
    /// The bytes mapped: the length asked for, rounded up to a whole huge
    /// page.
    mapped: usize,
}

#[cfg(all(target_os = "linux", not(miri)))]
impl Mapping {
    /// Maps one huge page more than needed, unmaps the unaligned head and
    /// the tail, then advises and prefaults what is left. `None` when the
    /// kernel refuses the mapping (the caller falls back to the heap).
    fn new(len: usize) -> Option<Mapping> {
        let mapped = len.checked_next_multiple_of(HUGE_PAGE)?;
        let span = mapped.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh anonymous private mapping at an address of the
        // kernel's choosing: no existing memory is touched. The result is
        // checked against MAP_FAILED before use.
        let raw = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                span,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = raw as usize;
        let aligned = start.next_multiple_of(HUGE_PAGE);
        let (head, tail) = (aligned - start, start + span - (aligned + mapped));
        // SAFETY: both ranges lie inside the mapping just made, which nothing
        // else refers to, and are page aligned (mmap returns page-aligned
        // memory and `span`, `mapped` are multiples of a page); what is left,
        // `[aligned, aligned + mapped)`, stays mapped. A failed unmap only
        // leaves unused address space mapped, so its result is ignored.
        unsafe {
            if head > 0 {
                libc::munmap(raw, head);
            }
            if tail > 0 {
                libc::munmap((aligned + mapped) as *mut libc::c_void, tail);
            }
        }
        advise(aligned, mapped);
        populate(aligned, mapped);
        Some(Mapping {
            ptr: core::ptr::NonNull::new(aligned as *mut u8)?,
            mapped,
        })
    }

    /// All the bytes mapped (the caller shows the first of them).
    fn bytes(&self) -> &[u8] {
        // SAFETY: `[ptr, ptr + mapped)` is mapped readable and writable for
        // as long as `self` lives, zero-filled by the kernel (so every byte
        // is initialized), and only reached through `self`.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.mapped) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`; `&mut self` makes this the only reference.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.mapped) }
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the range is the one `new` kept mapped; no slice of it
        // outlives `self` (they borrow it), so nothing refers to it after.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.mapped) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_keeps_the_contents_whatever_the_size() {
        for len in [0usize, 1, 4096, HUGE_PAGE, 3 * HUGE_PAGE + 17] {
            let mut v: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            v.reserve(HUGE_PAGE);
            advise_huge_pages(&mut v);
            assert!(v.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
            v.extend(core::iter::repeat_n(7, HUGE_PAGE));
            assert_eq!(v.len(), len + HUGE_PAGE);
        }
        let mut empty: Vec<u64> = Vec::new();
        advise_huge_pages(&mut empty);
        prefault(&mut empty, 0..1 << 20);
    }

    #[test]
    fn fresh_buffers_are_zeroed_writable_and_as_long_as_asked() {
        for len in [
            0usize,
            1,
            4096,
            HUGE_PAGE - 1,
            HUGE_PAGE,
            3 * HUGE_PAGE + 17,
        ] {
            let mut b = FreshBuf::zeroed(len);
            assert_eq!(b.len(), len);
            assert!(b.iter().all(|&x| x == 0));
            // Linux maps a large one on its own, aligned to a huge page
            // (elsewhere it is an ordinary zeroed allocation).
            #[cfg(all(target_os = "linux", not(miri)))]
            {
                assert_eq!(b.is_mapped(), len >= HUGE_PAGE, "{len}");
                if len >= HUGE_PAGE {
                    assert_eq!(b.as_ptr() as usize % HUGE_PAGE, 0);
                }
            }
            for (i, x) in b.iter_mut().enumerate() {
                *x = (i % 251) as u8;
            }
            assert!(b.iter().enumerate().all(|(i, &x)| x == (i % 251) as u8));
            b.truncate(len / 2);
            assert_eq!(b.len(), len / 2);
            b.truncate(len);
            assert_eq!(b.len(), len / 2);
        }
        let v = FreshBuf::from(std::vec![1u8, 2, 3]);
        assert_eq!(&v[..], &[1, 2, 3]);
        assert!(!v.is_mapped());
    }

    #[test]
    fn prefault_keeps_the_contents_and_stays_in_the_allocation() {
        for len in [0usize, 1, 4095, 4096, 3 * HUGE_PAGE + 17] {
            let mut v: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            v.reserve(2 * HUGE_PAGE);
            // More than the allocation: clamped to it.
            prefault(&mut v, 0..usize::MAX);
            prefault(&mut v, usize::MAX..usize::MAX);
            #[allow(clippy::reversed_empty_ranges)]
            prefault(&mut v, 5000..3);
            assert!(v.iter().enumerate().all(|(i, &b)| b == (i % 253) as u8));
            v.resize(len + 2 * HUGE_PAGE, 9);
            assert!(v[len..].iter().all(|&b| b == 9));
        }
    }

    /// Page-fault counts, on native x86-64 Linux only: under qemu-user
    /// (the aarch64 and s390x runs of scripts/test-cross.sh) the advice
    /// reaches no kernel page table, and Miri has no `madvise`.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    mod faults {
        use super::*;

        /// Minor page faults of this thread so far.
        fn minor_faults() -> i64 {
            // SAFETY: `getrusage` writes one `rusage` into the zeroed value we own.
            unsafe {
                let mut usage: libc::rusage = core::mem::zeroed();
                assert_eq!(libc::getrusage(libc::RUSAGE_THREAD, &mut usage), 0);
                usage.ru_minflt
            }
        }

        /// The page-fault measurements, in a process of their own: this test
        /// binary run again for this one test. Another test that starts a
        /// process by `fork` (Rust's `Command` does when it sets `PATH` for a
        /// bare program name, as the stdio client's tests do) write-protects
        /// every page of this process until the child execs, so a write after
        /// it faults once per page however the buffer was mapped (seen in CI:
        /// 2,041 faults after prefaulting). With the test threads' forks out
        /// of the way the counts are exact.
        #[test]
        fn page_faults_measured_in_a_quiet_process() {
            use std::string::String;
            const QUIET: &str = "CONTRACTPIN_TEST_QUIET_PROCESS";
            const NAME: &str = "mem::tests::faults::page_faults_measured_in_a_quiet_process";
            if std::env::var_os(QUIET).is_some() {
                an_advised_buffer_faults_far_less_than_once_per_4k_page();
                a_prefaulted_buffer_is_mapped_and_written_without_faults();
                a_fresh_mapping_is_written_without_faults();
                return;
            }
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--nocapture", "--test-threads", "1"])
                .env(QUIET, "1")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "the quiet process failed:\n{text}");
            assert!(
                text.contains("1 passed"),
                "the quiet process ran no test:\n{text}"
            );
            if let Some(line) = text.lines().find(|l| l.starts_with("SKIPPED")) {
                std::eprintln!("{line}");
            }
        }

        fn an_advised_buffer_faults_far_less_than_once_per_4k_page() {
            let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                .unwrap_or_default();
            if !thp.contains("[madvise]") && !thp.contains("[always]") {
                std::eprintln!(
                    "SKIPPED: transparent huge pages are off here ({thp:?}): nothing to measure"
                );
                return;
            }
            const LEN: usize = 16 << 20;
            let touch = |advised: bool| {
                let mut v = untouched(LEN);
                if advised {
                    advise_huge_pages(&mut v);
                }
                let before = minor_faults();
                write_all(&mut v, LEN);
                let faults = minor_faults() - before;
                assert_eq!(v[LEN - 1], 1);
                faults
            };
            let plain = touch(false);
            let advised = touch(true);
            // 16 MiB is 4,096 small pages, of which at most two huge pages' worth
            // (the unaligned ends) stay small when the advice is taken.
            assert!(plain > 3000, "{plain} faults without advice");
            assert!(
                advised < 1500,
                "{advised} faults with advice, {plain} without"
            );
        }

        fn a_prefaulted_buffer_is_mapped_and_written_without_faults() {
            const LEN: usize = 8 << 20;
            let mut v = untouched(LEN);
            prefault(&mut v, 0..LEN);
            let (resident, pages) = resident_pages(&mut v);
            assert_eq!(resident, pages, "pages mapped by prefault");
            let before = minor_faults();
            write_all(&mut v, LEN);
            let faults = minor_faults() - before;
            assert_eq!(v[LEN - 1], 1);
            // 2,048 small pages, all mapped already.
            assert!(faults <= 2, "{faults} faults after prefaulting");
        }

        fn a_fresh_mapping_is_written_without_faults() {
            const LEN: usize = 8 << 20;
            let mut b = FreshBuf::zeroed(LEN);
            let before = minor_faults();
            b.fill(3);
            let faults = minor_faults() - before;
            assert_eq!(b[LEN - 1], 3);
            assert!(faults <= 2, "{faults} faults writing a fresh mapping");
        }

        /// How many of the whole 4 KiB pages in `buf`'s allocation are
        /// resident, and how many there are (`mincore`).
        fn resident_pages(buf: &mut Vec<u8>) -> (usize, usize) {
            let (addr, len) = whole_units(buf, 0..usize::MAX, PAGE).unwrap();
            let mut map = std::vec![0u8; len / PAGE];
            // SAFETY: `[addr, addr + len)` is page aligned and inside `buf`'s
            // live allocation; `map` holds one byte per page of it.
            let rc = unsafe { libc::mincore(addr as *mut libc::c_void, len, map.as_mut_ptr()) };
            assert_eq!(rc, 0);
            (map.iter().filter(|&&b| b & 1 == 1).count(), map.len())
        }

        /// Fills `len` bytes of `v`'s spare room with ones in one `memset`
        /// (`Vec::resize` writes byte by byte in a test build).
        fn write_all(v: &mut Vec<u8>, len: usize) {
            v.spare_capacity_mut()[..len].fill(core::mem::MaybeUninit::new(1));
            // SAFETY: the first `len` bytes were just written.
            unsafe { v.set_len(len) };
        }

        /// An empty `Vec` with room for `len` bytes none of whose pages is
        /// mapped yet, so that what maps them is what a test measures. The
        /// allocator may hand back memory a freed buffer left mapped (glibc
        /// keeps freed large blocks once its threshold has grown); such
        /// blocks are held, not freed, while another is tried.
        fn untouched(len: usize) -> Vec<u8> {
            let mut held = Vec::new();
            for _ in 0..8 {
                let mut v: Vec<u8> = Vec::with_capacity(len);
                if resident_pages(&mut v).0 == 0 {
                    return v;
                }
                held.push(v);
            }
            panic!("the allocator gave only memory already mapped");
        }
    }
}
