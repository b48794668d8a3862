//! The C ABI's tool-call gate (`contractpin_gate_*`, `contractpin_refusal_*`):
//! the session policy of `contractpin proxy` (src/guard/gate.rs, docs/SECURITY.md
//! "Run-time enforcement") driven through the ABI with real page decisions,
//! argument errors and the stable numbers and names.
//!
//! The expected verdicts do not come from the gate: they follow from the
//! verdicts README.md documents for the shipped example (`examples/`:
//! against `contractpin.lock`, `tools-list.json` passes whole; in
//! `drifted-tools-list.json` `search_web` and `read_file` drifted,
//! `export_data` added, `translate` unchanged, `delete_record` absent) and
//! from the policy as the docs state it. Inputs are compiled in
//! (`include_bytes!`) so the suite also runs under Miri.
#![cfg(feature = "ffi")]

use std::ffi::CStr;
use std::ptr;

use contractpin::ffi::*;

#[path = "support/ffi_lock.rs"]
mod ffi_lock;
use ffi_lock::Lock;

const LOCK: &[u8] = include_bytes!("../examples/contractpin.lock");
const PAGE: &[u8] = include_bytes!("../examples/tools-list.json");
const DRIFTED: &[u8] = include_bytes!("../examples/drifted-tools-list.json");

use contractpin_refusal::{
    Callable, Drifted, InvalidArgument, ListChanged, NoListing, NotListed, Unpinned,
};

/// Owns a `contractpin_gate`.
struct Gate(*mut contractpin_gate);

impl Gate {
    fn new() -> Gate {
        let mut g = ptr::null_mut();
        // SAFETY: valid out-parameter.
        let st = unsafe { contractpin_gate_new(&mut g) };
        assert_eq!(st, contractpin_status::Ok);
        assert!(!g.is_null());
        Gate(g)
    }

    fn check(&self, name: &str) -> contractpin_refusal {
        // SAFETY: live gate, readable name.
        unsafe { contractpin_gate_check(self.0, name.as_ptr(), name.len()) }
    }

    /// A page's decision, given to the gate as `kind`.
    fn page(&self, res: &Res, kind: u32) {
        // SAFETY: live gate and result.
        let st = unsafe { contractpin_gate_page(self.0, res.0, kind) };
        assert_eq!(st, contractpin_status::Ok);
    }

    fn refused(&self, kind: u32) {
        // SAFETY: live gate.
        let st = unsafe { contractpin_gate_refused(self.0, kind) };
        assert_eq!(st, contractpin_status::Ok);
    }

    fn list_changed(&self) {
        // SAFETY: live gate.
        let st = unsafe { contractpin_gate_list_changed(self.0) };
        assert_eq!(st, contractpin_status::Ok);
    }

    /// Each of the example's five tools and its verdict, in this order:
    /// search_web, read_file, translate, delete_record, export_data.
    fn verdicts(&self) -> [contractpin_refusal; 5] {
        TOOLS.map(|t| self.check(t))
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // SAFETY: from contractpin_gate_new, freed once.
        unsafe { contractpin_gate_free(self.0) };
    }
}

const TOOLS: [&str; 5] = [
    "search_web",
    "read_file",
    "translate",
    "delete_record",
    "export_data",
];

/// Owns a `contractpin_guard_result` (each test decides a page once: the
/// decisions are the slow part under Miri).
struct Res(*mut contractpin_guard_result);

impl Drop for Res {
    fn drop(&mut self) {
        // SAFETY: from contractpin_guard_page, freed once.
        unsafe { contractpin_guard_result_free(self.0) };
    }
}

/// `contractpin_guard_page` of the example for server `example`.
fn decide(lock: &Lock, page: &[u8], flags: u32) -> Res {
    let mut out = ptr::null_mut();
    // SAFETY: valid handle, buffers and out-parameters.
    let st = unsafe {
        contractpin_guard_page(
            lock.0,
            b"example".as_ptr(),
            7,
            page.as_ptr(),
            page.len(),
            flags,
            ptr::null(),
            &mut out,
            ptr::null_mut(),
        )
    };
    assert_eq!(st, contractpin_status::Ok);
    Res(out)
}

#[test]
fn a_session_of_listings_changes_and_refusals() {
    let lock = Lock::parse(LOCK);
    let clean = decide(&lock, PAGE, 0);
    let drifted = decide(&lock, DRIFTED, 0);
    let observed = decide(&lock, DRIFTED, CONTRACTPIN_GUARD_OBSERVE);
    let g = Gate::new();
    assert_eq!(g.verdicts(), [NoListing; 5]);
    // A clean listing: the four pinned tools.
    g.page(&clean, CONTRACTPIN_PAGE_FIRST);
    assert_eq!(
        g.verdicts(),
        [Callable, Callable, Callable, Callable, NotListed]
    );
    // The drifted listing replaces it.
    g.page(&drifted, CONTRACTPIN_PAGE_FIRST);
    assert_eq!(
        g.verdicts(),
        [Drifted, Drifted, Callable, NotListed, Unpinned]
    );
    // The tools changed: nothing, and a late cursor page adds nothing.
    g.list_changed();
    assert_eq!(g.verdicts(), [ListChanged; 5]);
    g.page(&clean, CONTRACTPIN_PAGE_NEXT);
    assert_eq!(g.verdicts(), [ListChanged; 5]);
    // Listed again.
    g.page(&clean, CONTRACTPIN_PAGE_FIRST);
    assert_eq!(
        g.verdicts(),
        [Callable, Callable, Callable, Callable, NotListed]
    );
    // An unrequested page only takes away what it reports.
    g.page(&drifted, CONTRACTPIN_PAGE_UNMATCHED);
    assert_eq!(
        g.verdicts(),
        [Drifted, Drifted, Callable, Callable, NotListed]
    );
    // A cursor page of the current listing adds; then one is refused, and
    // the refused listing's later pages add nothing.
    g.page(&clean, CONTRACTPIN_PAGE_NEXT);
    assert_eq!(g.verdicts()[..4], [Callable; 4]);
    // (The reasons the listing kept still say why a tool is refused.)
    g.refused(CONTRACTPIN_PAGE_NEXT);
    let refused = [Drifted, Drifted, NotListed, NotListed, NotListed];
    assert_eq!(g.verdicts(), refused);
    g.page(&clean, CONTRACTPIN_PAGE_NEXT);
    assert_eq!(g.verdicts(), refused);
    // A page decided in observe mode (the drifted and unpinned tools kept
    // in the page) gets the proxy's verdicts too: in observe mode the
    // client sends a refused call anyway, and logs why.
    g.page(&observed, CONTRACTPIN_PAGE_FIRST);
    assert_eq!(
        g.verdicts(),
        [Drifted, Drifted, Callable, NotListed, Unpinned]
    );
    // A refused first page leaves nothing.
    g.refused(CONTRACTPIN_PAGE_FIRST);
    assert_eq!(
        g.verdicts(),
        [Drifted, Drifted, NotListed, NotListed, Unpinned]
    );
}

#[test]
fn a_refused_cursor_page_before_any_listing_or_after_a_change_keeps_that_state() {
    let clean = decide(&Lock::parse(LOCK), PAGE, 0);
    let g = Gate::new();
    g.refused(CONTRACTPIN_PAGE_NEXT);
    g.page(&clean, CONTRACTPIN_PAGE_NEXT);
    g.page(&clean, CONTRACTPIN_PAGE_UNMATCHED);
    assert_eq!(g.verdicts(), [NoListing; 5]);
    g.page(&clean, CONTRACTPIN_PAGE_FIRST);
    g.list_changed();
    g.refused(CONTRACTPIN_PAGE_UNMATCHED);
    assert_eq!(g.verdicts(), [ListChanged; 5]);
}

#[test]
fn argument_errors_fail_closed() {
    let lock = Lock::parse(LOCK);
    let clean = decide(&lock, PAGE, 0);
    let g = Gate::new();
    let listed = [Callable, Callable, Callable, Callable, NotListed];
    // Each failure with a gate leaves it refusing until a new listing.
    for kind in [3, u32::MAX] {
        g.page(&clean, CONTRACTPIN_PAGE_FIRST);
        // SAFETY: live handles.
        let st = unsafe { contractpin_gate_page(g.0, clean.0, kind) };
        assert_eq!(st, contractpin_status::InvalidArgument);
        assert_eq!(g.verdicts(), [NotListed; 5], "page kind {kind}");
        g.page(&clean, CONTRACTPIN_PAGE_FIRST);
        // SAFETY: a live gate.
        let st = unsafe { contractpin_gate_refused(g.0, kind) };
        assert_eq!(st, contractpin_status::InvalidArgument);
        assert_eq!(g.verdicts(), [NotListed; 5], "refused kind {kind}");
        // An unknown kind is refused as a first page: a cursor page adds nothing.
        g.page(&clean, CONTRACTPIN_PAGE_NEXT);
        assert_eq!(g.verdicts(), [NotListed; 5], "then a cursor page");
    }
    g.page(&clean, CONTRACTPIN_PAGE_FIRST);
    assert_eq!(g.verdicts(), listed);
    // SAFETY: a live gate, a NULL result.
    let st = unsafe { contractpin_gate_page(g.0, ptr::null(), CONTRACTPIN_PAGE_NEXT) };
    assert_eq!(st, contractpin_status::NullArgument);
    assert_eq!(g.verdicts(), [NotListed; 5]);
    g.page(&clean, CONTRACTPIN_PAGE_FIRST);
    // SAFETY: NULL gates and results, or live ones.
    unsafe {
        assert_eq!(
            contractpin_gate_page(ptr::null_mut(), clean.0, CONTRACTPIN_PAGE_FIRST),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_gate_refused(ptr::null_mut(), CONTRACTPIN_PAGE_FIRST),
            contractpin_status::NullArgument
        );
        // The gate is checked first.
        assert_eq!(
            contractpin_gate_refused(ptr::null_mut(), 3),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_gate_page(ptr::null_mut(), ptr::null(), 3),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_gate_list_changed(ptr::null_mut()),
            contractpin_status::NullArgument
        );
        assert_eq!(
            contractpin_gate_new(ptr::null_mut()),
            contractpin_status::NullArgument
        );
        contractpin_gate_free(ptr::null_mut());
    }
    assert_eq!(g.verdicts(), listed);
    // SAFETY: NULL or live gates; NULL or readable names.
    unsafe {
        assert_eq!(
            contractpin_gate_check(ptr::null(), b"translate".as_ptr(), 9),
            InvalidArgument
        );
        assert_eq!(contractpin_gate_check(g.0, ptr::null(), 9), InvalidArgument);
        assert_eq!(
            contractpin_gate_check(g.0, b"\xfftranslate".as_ptr(), 10),
            InvalidArgument
        );
        // NULL with length 0 is the empty name, which no listing held.
        assert_eq!(contractpin_gate_check(g.0, ptr::null(), 0), NotListed);
    }
    // Names are exact.
    for name in ["Translate", "translate ", "translat", "search_web\0"] {
        assert_eq!(g.check(name), NotListed, "{name:?}");
    }
}

fn text(p: *const std::ffi::c_char) -> &'static str {
    assert!(!p.is_null());
    // SAFETY: the library's static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap()
}

#[test]
fn the_stable_numbers_names_and_messages() {
    assert_eq!(
        [
            CONTRACTPIN_PAGE_FIRST,
            CONTRACTPIN_PAGE_NEXT,
            CONTRACTPIN_PAGE_UNMATCHED
        ],
        [0, 1, 2]
    );
    // The words of `contractpin proxy --log` (docs/SECURITY.md), 0 to 7.
    let names = [
        "callable",
        "no-listing",
        "list-changed",
        "drifted",
        "unpinned",
        "not-listed",
        "no-name",
        "invalid-argument",
    ];
    let values = [
        Callable,
        NoListing,
        ListChanged,
        Drifted,
        Unpinned,
        NotListed,
        contractpin_refusal::NoName,
        InvalidArgument,
    ];
    for (i, (name, value)) in names.iter().zip(values).enumerate() {
        assert_eq!(value as u32, i as u32);
        assert_eq!(text(contractpin_refusal_name(i as u32)), *name);
        let message = text(contractpin_refusal_message(i as u32));
        assert!(message.len() > 15 && message.is_ascii(), "{message}");
    }
    assert!(text(contractpin_refusal_message(2)).contains("notifications/tools/list_changed"));
    assert_eq!(
        text(contractpin_refusal_message(5)),
        "the tool was not in the latest checked tools/list"
    );
    for unknown in [8, 99, u32::MAX] {
        assert_eq!(text(contractpin_refusal_name(unknown)), "unknown-refusal");
        assert_eq!(
            text(contractpin_refusal_message(unknown)),
            "unknown refusal code"
        );
    }
}
