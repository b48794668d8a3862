//! A parsed `contractpin_lock` owned by a test: parsed from bytes that must
//! be a valid lock, freed on drop (shared by the guard tests of the C ABI).

use std::ptr;

use contractpin::ffi::{
    contractpin_lock, contractpin_lock_free, contractpin_lock_parse, contractpin_status,
};

/// Owns a `contractpin_lock`.
pub struct Lock(pub *mut contractpin_lock);

// SAFETY: a parsed lock is immutable and may be read from several threads
// at once (docs/C_ABI.md); the tests free it only after the threads end.
unsafe impl Sync for Lock {}

impl Lock {
    /// Parses `bytes`, which must be a valid lock.
    pub fn parse(bytes: &[u8]) -> Lock {
        let mut lock = ptr::null_mut();
        // SAFETY: valid buffers and out-parameters.
        let st = unsafe {
            contractpin_lock_parse(
                bytes.as_ptr(),
                bytes.len(),
                &mut lock,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        assert_eq!(st, contractpin_status::Ok);
        Lock(lock)
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: from contractpin_lock_parse, freed once.
        unsafe { contractpin_lock_free(self.0) };
    }
}
