//! Resource limits applied while parsing and digesting.

/// The largest input the tape can address (offsets and lengths use 28 bits).
pub const MAX_INPUT: usize = (1 << 28) - 1;

/// Limits on untrusted input. Every limit gives a clear error when exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest allowed nesting of arrays and objects; the top-level container
    /// has depth 1. Default 256.
    pub max_depth: u32,
    /// Longest accepted input in bytes. Default 64 MiB; never more than [`MAX_INPUT`].
    pub max_input: usize,
    /// Most tools accepted in one tools/list (over all pages). Default 100 000.
    pub max_tools: usize,
}

impl Limits {
    /// The default limits.
    pub const DEFAULT: Limits = Limits {
        max_depth: 256,
        max_input: 64 << 20,
        max_tools: 100_000,
    };

    /// The longest input these limits accept: `max_input`, never more than
    /// [`MAX_INPUT`].
    pub const fn input_cap(&self) -> usize {
        if self.max_input < MAX_INPUT {
            self.max_input
        } else {
            MAX_INPUT
        }
    }

    /// Whether an input of `len` bytes is within [`Limits::input_cap`]:
    /// asked before any memory is sized from an input, so that one over the
    /// limit fails with its size error instead of costing (or failing to
    /// get) memory in proportion to it.
    pub const fn accepts_len(&self, len: usize) -> bool {
        len <= self.input_cap()
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}
