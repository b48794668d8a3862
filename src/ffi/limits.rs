//! `contractpin_limits`: the resource limits of the `*_with_limits` calls.

use crate::limits::Limits;

/// Limits on untrusted input, passed by pointer to the `*_with_limits`
/// functions (NULL means the defaults). Start from
/// `contractpin_limits_default()` and change the fields you care about.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct contractpin_limits {
    /// Deepest allowed nesting of arrays and objects (the top-level container
    /// has depth 1). Default 256. Exceeding it is `CONTRACTPIN_STATUS_DEPTH_LIMIT`.
    pub max_depth: u32,
    /// Longest accepted input in bytes. Default 64 MiB; values above
    /// 268435455 (2^28 - 1, what the parser can address) act as that.
    /// Exceeding it is `CONTRACTPIN_STATUS_SIZE_LIMIT`.
    pub max_input: usize,
    /// Most tools in one tools/list, over all pages. Default 100000.
    /// Exceeding it is `CONTRACTPIN_STATUS_TOOL_LIMIT`.
    pub max_tools: usize,
}

impl From<contractpin_limits> for Limits {
    fn from(l: contractpin_limits) -> Limits {
        Limits {
            max_depth: l.max_depth,
            max_input: l.max_input,
            max_tools: l.max_tools,
        }
    }
}

impl From<Limits> for contractpin_limits {
    fn from(l: Limits) -> contractpin_limits {
        contractpin_limits {
            max_depth: l.max_depth,
            max_input: l.max_input,
            max_tools: l.max_tools,
        }
    }
}

/// The default limits (depth 256, input 64 MiB, 100000 tools), returned by
/// value. Cannot fail; thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_limits_default() -> contractpin_limits {
    Limits::DEFAULT.into()
}

/// The limits behind a possibly NULL pointer.
///
/// # Safety
/// `limits` is NULL or valid for reading one `contractpin_limits`.
pub(crate) unsafe fn resolve(limits: *const contractpin_limits) -> Limits {
    if limits.is_null() {
        Limits::DEFAULT
    } else {
        // SAFETY: non-null and readable by the caller's contract.
        Limits::from(unsafe { limits.read() })
    }
}
