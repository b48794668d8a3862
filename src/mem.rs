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

use std::vec::Vec;

/// Size and alignment of an x86-64 / AArch64 (4 KiB granule) huge page.
const HUGE_PAGE: usize = 2 << 20;

/// Advises huge pages for the whole allocation of `buf` (its length and its
/// spare capacity), where it covers at least one aligned 2 MiB page.
pub fn advise_huge_pages<T>(buf: &mut Vec<T>) {
    let start = buf.as_mut_ptr() as usize;
    let bytes = buf.capacity().saturating_mul(core::mem::size_of::<T>());
    let first = start.div_ceil(HUGE_PAGE) * HUGE_PAGE;
    let end = (start.saturating_add(bytes) / HUGE_PAGE) * HUGE_PAGE;
    if end > first {
        advise(first, end - first);
    }
}

/// Faults in, in one system call, the pages of `buf`'s allocation that
/// lie wholly inside its first `bytes` bytes (clamped to the allocation),
/// for a buffer that is about to be written that far: the input a file is
/// read into, the canonical output of a document. The memory is the same
/// either way (zeroed by the kernel); only the traps are saved. Use it
/// after [`advise_huge_pages`], so the aligned part is mapped in huge pages.
pub fn prefault<T>(buf: &mut Vec<T>, bytes: usize) {
    let start = buf.as_mut_ptr() as usize;
    let size = buf.capacity().saturating_mul(core::mem::size_of::<T>());
    let first = start.div_ceil(PAGE) * PAGE;
    let end = (start.saturating_add(bytes.min(size)) / PAGE) * PAGE;
    if end > first {
        populate(first, end - first);
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
        prefault(&mut empty, 1 << 20);
    }

    #[test]
    fn prefault_keeps_the_contents_and_stays_in_the_allocation() {
        for len in [0usize, 1, 4095, 4096, 3 * HUGE_PAGE + 17] {
            let mut v: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            v.reserve(2 * HUGE_PAGE);
            // More than the allocation: clamped to it.
            prefault(&mut v, usize::MAX);
            assert!(v.iter().enumerate().all(|(i, &b)| b == (i % 253) as u8));
            v.resize(len + 2 * HUGE_PAGE, 9);
            assert!(v[len..].iter().all(|&b| b == 9));
        }
    }

    /// Minor page faults of this thread so far (other test threads fault too).
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    fn minor_faults() -> i64 {
        // SAFETY: `getrusage` writes one `rusage` into the zeroed value we own.
        unsafe {
            let mut usage: libc::rusage = core::mem::zeroed();
            assert_eq!(libc::getrusage(libc::RUSAGE_THREAD, &mut usage), 0);
            usage.ru_minflt
        }
    }

    /// Native x86-64 only: under qemu-user (the aarch64 and s390x runs of
    /// scripts/test-cross.sh) the advice reaches no kernel page table.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    #[test]
    fn an_advised_buffer_faults_far_less_than_once_per_4k_page() {
        use std::eprintln;
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !thp.contains("[madvise]") && !thp.contains("[always]") {
            eprintln!("SKIPPED: transparent huge pages are off here ({thp:?}): nothing to measure");
            return;
        }
        const LEN: usize = 16 << 20;
        let touch = |advised: bool| {
            let mut v: Vec<u8> = Vec::with_capacity(LEN);
            if advised {
                advise_huge_pages(&mut v);
            }
            let before = minor_faults();
            v.resize(LEN, 1);
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

    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    #[test]
    fn a_prefaulted_buffer_is_written_without_faults() {
        const LEN: usize = 8 << 20;
        let mut v: Vec<u8> = Vec::with_capacity(LEN);
        prefault(&mut v, LEN);
        let before = minor_faults();
        v.resize(LEN, 1);
        let faults = minor_faults() - before;
        assert_eq!(v[LEN - 1], 1);
        // 2,048 small pages; only the partial pages at the ends may fault.
        assert!(faults <= 4, "{faults} faults after prefaulting");
    }
}
