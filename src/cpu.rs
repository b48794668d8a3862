//! What this `x86_64` CPU can run, read without `std`: the CPUID feature
//! bits and whether the operating system saves the vector state (XCR0),
//! each answer detected once and cached in an atomic. The one home of
//! feature detection for the SIMD back ends (`arch::avx2`, `arch::avx512`,
//! `sha256::shani`, `sha256::avx512`), and of the vendor and family facts
//! `sha256::many` chooses its multi-buffer kernel by.
//!
//! CPUID is read once per process, whatever the number of features asked
//! about: in a virtual machine every CPUID traps to the hypervisor (about
//! 9 µs each on the AMD EPYC guest of docs/PERFORMANCE.md), and a
//! short-lived `contractpin digest` asks about six features.
//!
//! Under Miri, which runs neither CPUID nor XGETBV, the answers are the
//! features the build targets (`-C target-feature`), so that Miri checks
//! exactly the back ends a build asks for (`scripts/miri-core.sh`).

#[cfg(not(miri))]
use core::arch::x86_64::{__cpuid, __cpuid_count, _xgetbv};
use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU8, Ordering};

/// The CPUID feature words the back ends test.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Features {
    /// Leaf 1 ECX (SSSE3 bit 9, SSE4.1 bit 19, POPCNT bit 23, OSXSAVE
    /// bit 27, AVX bit 28).
    pub leaf1_ecx: u32,
    /// Leaf 7 subleaf 0 EBX (BMI1 bit 3, AVX2 bit 5, BMI2 bit 8, AVX-512 F bit 16, SHA
    /// bit 29, AVX-512 BW bit 30, AVX-512 VL bit 31).
    pub leaf7_ebx: u32,
    /// Leaf 7 subleaf 0 ECX (AVX-512 VBMI2 bit 6).
    #[cfg_attr(contractpin_portable_simd, allow(dead_code))]
    pub leaf7_ecx: u32,
    /// Leaf 0 EBX: the first four bytes of the vendor string
    /// ("Auth" of "AuthenticAMD", "Genu" of "GenuineIntel").
    #[cfg_attr(contractpin_portable_sha256, allow(dead_code))]
    pub vendor: u32,
    /// Leaf 1 EAX: family, model and stepping.
    #[cfg_attr(contractpin_portable_sha256, allow(dead_code))]
    pub signature: u32,
}

/// The feature words of [`Features::get`], and whether they are set.
static WORDS: [AtomicU32; 5] = [const { AtomicU32::new(0) }; 5];
static WORDS_READ: AtomicBool = AtomicBool::new(false);

impl Features {
    /// The feature words, read from CPUID on the first call and cached.
    /// (Two threads calling first both read CPUID and store the same words.)
    pub(crate) fn get() -> Features {
        if WORDS_READ.load(Ordering::Acquire) {
            let word = |i: usize| WORDS[i].load(Ordering::Relaxed);
            return Features {
                leaf1_ecx: word(0),
                leaf7_ebx: word(1),
                leaf7_ecx: word(2),
                vendor: word(3),
                signature: word(4),
            };
        }
        let f = Features::read();
        let words = [f.leaf1_ecx, f.leaf7_ebx, f.leaf7_ecx, f.vendor, f.signature];
        for (slot, w) in WORDS.iter().zip(words) {
            slot.store(w, Ordering::Relaxed);
        }
        // Publishes the words stored above (paired with the `Acquire` load).
        WORDS_READ.store(true, Ordering::Release);
        f
    }

    /// Reads CPUID; all zeros when leaf 7 does not exist.
    #[cfg(not(miri))]
    fn read() -> Features {
        // `__cpuid` / `__cpuid_count` are `unsafe fn` on older toolchains
        // and safe on newer ones; the allow keeps both quiet.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86_64 processor and only reads
        // identification registers; leaf 0 reports the highest leaf, and
        // leaves 1 and 7 are read only if they exist.
        unsafe {
            let leaf0 = __cpuid(0);
            if leaf0.eax < 7 {
                return Features::default();
            }
            let (leaf1, leaf7) = (__cpuid(1), __cpuid_count(7, 0));
            Features {
                leaf1_ecx: leaf1.ecx,
                leaf7_ebx: leaf7.ebx,
                leaf7_ecx: leaf7.ecx,
                vendor: leaf0.ebx,
                signature: leaf1.eax,
            }
        }
    }

    /// Under Miri, which cannot run CPUID, the bits of the features the
    /// build targets (`-C target-feature`), with OSXSAVE and AVX where AVX2
    /// is on: so that `scripts/miri-core.sh` checks the back ends of the
    /// build it makes with `+avx2`, and a plain Miri build the baseline.
    #[cfg(miri)]
    fn read() -> Features {
        let bit = |on: bool, at: u32| u32::from(on) << at;
        let avx = cfg!(target_feature = "avx");
        Features {
            leaf1_ecx: bit(cfg!(target_feature = "ssse3"), 9)
                | bit(cfg!(target_feature = "sse4.1"), 19)
                | bit(cfg!(target_feature = "popcnt"), 23)
                | bit(avx, 27)
                | bit(avx, 28),
            leaf7_ebx: bit(cfg!(target_feature = "bmi1"), 3)
                | bit(cfg!(target_feature = "avx2"), 5)
                | bit(cfg!(target_feature = "bmi2"), 8)
                | bit(cfg!(target_feature = "avx512f"), 16)
                | bit(cfg!(target_feature = "sha"), 29)
                | bit(cfg!(target_feature = "avx512bw"), 30)
                | bit(cfg!(target_feature = "avx512vl"), 31),
            leaf7_ecx: bit(cfg!(target_feature = "avx512vbmi2"), 6),
            vendor: 0,
            signature: 0,
        }
    }

    /// Whether every bit of `leaf1_ecx` and of `leaf7_ebx` is set.
    pub(crate) fn has(&self, leaf1_ecx: u32, leaf7_ebx: u32) -> bool {
        self.leaf1_ecx & leaf1_ecx == leaf1_ecx && self.leaf7_ebx & leaf7_ebx == leaf7_ebx
    }

    /// Whether the operating system saves every state component of `xcr0`
    /// (bit 1 XMM, 2 YMM, 5-7 the AVX-512 opmask and ZMM halves).
    pub(crate) fn os_saves(&self, xcr0: u64) -> bool {
        if !self.has(1 << 27, 0) {
            return false;
        }
        // SAFETY: OSXSAVE (checked above) means the OS enabled XGETBV.
        unsafe { read_xcr0() & xcr0 == xcr0 }
    }
}

/// AVX-512 F and BW (CPUID leaf 7 EBX bits 16 and 30), and the OS saves
/// the XMM, YMM, opmask and both halves of the ZMM state (XCR0 bits 1, 2,
/// 5-7): what `arch::avx512` needs (a predicate for [`Detected::get`]).
#[cfg(not(contractpin_portable_simd))]
pub(crate) fn avx512_bw(f: &Features) -> bool {
    f.has(0, 1 << 16 | 1 << 30) && f.os_saves(0b1110_0110)
}

/// [`avx512_bw`] with AVX-512 VBMI2 (leaf 7 ECX bit 6: `vpcompressb`),
/// and [`bit_ops`]: what `arch::avx512::flatten` needs.
#[cfg(not(contractpin_portable_simd))]
pub(crate) fn avx512_vbmi2(f: &Features) -> bool {
    avx512_bw(f) && bit_ops(f) && f.leaf7_ecx & 1 << 6 != 0
}

/// POPCNT (CPUID leaf 1 ECX bit 23) and BMI1 (leaf 7 EBX bit 3): what
/// `arch::bit_ops` reports (no OS state is involved).
#[cfg(not(contractpin_portable_simd))]
pub(crate) fn bit_ops(f: &Features) -> bool {
    f.has(1 << 23, 1 << 3)
}

/// AVX2 and AVX (CPUID leaf 7 EBX bit 5, leaf 1 ECX bit 28) with the OS
/// saving the XMM and YMM state, BMI1 and BMI2 (leaf 7 EBX bits 3 and 8)
/// and POPCNT (leaf 1 ECX bit 23): the instruction set of the one-pass
/// canonicalizer's second build (`arch::wide_scalar`).
#[cfg(not(contractpin_portable_simd))]
pub(crate) fn avx2_bmi(f: &Features) -> bool {
    f.has(1 << 28 | 1 << 23, 1 << 5 | 1 << 3 | 1 << 8) && f.os_saves(0b110)
}

/// AVX-512 F and VL (CPUID leaf 7 EBX bits 16 and 31), and the OS saves the
/// XMM, YMM, opmask and both halves of the ZMM state (XCR0 bits 1, 2, 5-7):
/// what the AVX-512 VL builds of `sha256::shani`'s multi-stream kernels
/// need (XMM16-31 and the EVEX forms of 128-bit instructions).
#[cfg(not(contractpin_portable_sha256))]
pub(crate) fn avx512_vl(f: &Features) -> bool {
    f.has(0, 1 << 16 | 1 << 31) && f.os_saves(0b1110_0110)
}

/// The CPU family of leaf 1 EAX: the base family, plus the extended
/// family when the base one is 0xF (Intel SDM and AMD APM, CPUID Fn0000_0001).
#[cfg(not(contractpin_portable_sha256))]
fn family(f: &Features) -> u32 {
    let base = f.signature >> 8 & 0xf;
    if base == 0xf {
        base + (f.signature >> 20 & 0xff)
    } else {
        base
    }
}

/// An AMD CPU (vendor "AuthenticAMD"). Its SHA-NI unit starts a
/// `sha256rnds2` every cycle, with a latency of four (measured on Zen 4,
/// docs/PERFORMANCE.md), so four interleaved SHA-256 streams keep it
/// busier than two; `sha256::many` chooses its kernel by this.
#[cfg(not(contractpin_portable_sha256))]
pub(crate) fn amd(f: &Features) -> bool {
    f.vendor == u32::from_le_bytes(*b"Auth")
}

/// An AMD CPU of family 19h (Zen 3 and Zen 4): Zen 4, its only one with
/// AVX-512, runs each 512-bit operation as two 256-bit halves, so the
/// sixteen AVX-512 SHA-256 lanes gain nothing over SHA-NI's four streams
/// there (`sha256::many`). Zen 5 (family 1Ah) is not matched: its desktop
/// and server parts run 512-bit operations whole.
#[cfg(not(contractpin_portable_sha256))]
pub(crate) fn amd_zen3_zen4(f: &Features) -> bool {
    amd(f) && family(f) == 0x19
}

/// Reads XCR0.
///
/// # Safety
/// The CPU must report OSXSAVE (CPUID leaf 1 ECX bit 27).
#[cfg(not(miri))]
#[target_feature(enable = "xsave")]
unsafe fn read_xcr0() -> u64 {
    // SAFETY: the caller guarantees OSXSAVE, so XGETBV does not fault, and
    // XCR0 (register 0) exists whenever XGETBV does.
    unsafe { _xgetbv(0) }
}

/// Under Miri, which cannot run XGETBV: every state saved, so that the
/// features [`Features::read`] reports there are usable.
///
/// # Safety
/// None; `unsafe` only to match the real one.
#[cfg(miri)]
unsafe fn read_xcr0() -> u64 {
    u64::MAX
}

/// One feature's detection result: detected on first use, then cached.
pub(crate) struct Detected(AtomicU8);

impl Detected {
    /// Not detected yet.
    pub(crate) const fn new() -> Detected {
        Detected(AtomicU8::new(0))
    }

    /// The cached answer, or `detect`'s (then cached).
    #[inline]
    pub(crate) fn get(&self, detect: fn(&Features) -> bool) -> bool {
        match self.0.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => {
                let present = detect(&Features::get());
                self.0.store(if present { 2 } else { 1 }, Ordering::Relaxed);
                present
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached words are what CPUID says, on every call, and agree with
    /// `std`'s own detection.
    #[test]
    fn cached_words_are_the_cpus() {
        let read = Features::read();
        let words = |f: Features| {
            let w = (f.leaf1_ecx, f.leaf7_ebx, f.leaf7_ecx);
            (w, f.vendor, f.signature)
        };
        for _ in 0..3 {
            assert_eq!(words(Features::get()), words(read));
        }
        let f = Features::get();
        assert_eq!(f.has(0, 1 << 29), std::is_x86_feature_detected!("sha"));
        assert_eq!(f.has(1 << 23, 0), std::is_x86_feature_detected!("popcnt"));
        assert_eq!(f.has(0, 1 << 3), std::is_x86_feature_detected!("bmi1"));
        #[cfg(not(contractpin_portable_simd))]
        assert_eq!(
            avx512_bw(&f),
            std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
        );
    }

    /// The family of real CPUID signatures (leaf 1 EAX; the family in
    /// /proc/cpuinfo is the same number in decimal), and which are Zen 3/4.
    #[cfg(not(contractpin_portable_sha256))]
    #[test]
    fn families_and_zen4_from_known_signatures() {
        let amd_vendor = u32::from_le_bytes(*b"Auth");
        let intel = u32::from_le_bytes(*b"Genu");
        let cpu = |vendor, signature| Features {
            vendor,
            signature,
            ..Features::default()
        };
        // (vendor, signature, family, Zen 3/4): EPYC 9004 (Zen 4, family 25
        // model 17), EPYC 7003 (Zen 3), Ryzen 9000 (Zen 5, family 26), EPYC
        // 7002 (Zen 2, family 23), Xeon Sapphire Rapids (family 6 model 143).
        let known = [
            (amd_vendor, 0x00A1_0F11, 0x19, true),
            (amd_vendor, 0x00A0_0F11, 0x19, true),
            (amd_vendor, 0x00B4_0F40, 0x1A, false),
            (amd_vendor, 0x0083_0F10, 0x17, false),
            (intel, 0x0008_06F8, 0x6, false),
            (intel, 0x00A1_0F11, 0x19, false),
        ];
        for (vendor, signature, fam, zen) in known {
            let f = cpu(vendor, signature);
            assert_eq!(family(&f), fam, "{signature:#x}");
            assert_eq!(amd_zen3_zen4(&f), zen, "{signature:#x}");
            assert_eq!(amd(&f), vendor == amd_vendor, "{signature:#x}");
        }
    }
}
