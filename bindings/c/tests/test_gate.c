/* The tool-call gate (contractpin_gate_*, contractpin_refusal_*): the session
 * policy of `contractpin proxy` (docs/C_ABI.md, "What the embedding client
 * keeps between pages"; src/guard/gate.rs) driven from C with real page
 * decisions, argument errors, and the stable numbers, names and messages.
 * The C twin of tests/ffi_gate.rs.
 *
 * The pages are the shipped example's (examples/, found from TESTDATA_DIR
 * as ../../../examples: the repository's layout). The expected verdicts do
 * not come from the gate: they follow from what README.md documents for that
 * example (against contractpin.lock, server `example`, tools-list.json
 * passes whole; in drifted-tools-list.json search_web and read_file drifted,
 * export_data added, i.e. unpinned, translate unchanged, delete_record
 * absent) and from the policy as docs/C_ABI.md states it. */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

/* The example's five tools, in the order of every verdict list below. */
static const char *const TOOLS[5] = {"search_web", "read_file", "translate", "delete_record",
                                     "export_data"};

enum {
    CALLABLE = CONTRACTPIN_REFUSAL_CALLABLE,
    NO_LISTING = CONTRACTPIN_REFUSAL_NO_LISTING,
    LIST_CHANGED = CONTRACTPIN_REFUSAL_LIST_CHANGED,
    DRIFTED = CONTRACTPIN_REFUSAL_DRIFTED,
    UNPINNED = CONTRACTPIN_REFUSAL_UNPINNED,
    NOT_LISTED = CONTRACTPIN_REFUSAL_NOT_LISTED,
    INVALID = CONTRACTPIN_REFUSAL_INVALID_ARGUMENT
};

/* The example's pages and lock. */
struct pages {
    const contractpin_lock *lock;
    const uint8_t *clean, *drifted;
    size_t clean_len, drifted_len;
};

static contractpin_refusal check(const contractpin_gate *g, const char *name) {
    return contractpin_gate_check(g, U8(name), strlen(name));
}

/* A refusal as "name (number)", for failure messages. */
#define REFUSAL_ARGS(r) contractpin_refusal_name(r), (unsigned)(r)

/* Each of the five tools gets its verdict in want (one check each). */
static void expect_verdicts(const contractpin_gate *g, const uint32_t want[5], int line) {
    for (int i = 0; i < 5; i++) {
        contractpin_refusal got = check(g, TOOLS[i]);
        checks_run++;
        if ((uint32_t)got != want[i]) {
            checks_failed++;
            fprintf(stderr, "%s:%d: %s: %s (%u), expected %s (%u)\n", __FILE__, line, TOOLS[i],
                    REFUSAL_ARGS(got), REFUSAL_ARGS(want[i]));
        }
    }
}

#define VERDICTS(g, a, b, c, d, e)                                                    \
    do {                                                                              \
        const uint32_t want_[5] = {(a), (b), (c), (d), (e)};                          \
        expect_verdicts((g), want_, __LINE__);                                        \
    } while (0)
#define ALL_VERDICTS(g, v) VERDICTS((g), (v), (v), (v), (v), (v))

/* contractpin_guard_page for server `example`; NULL if it failed. */
static contractpin_guard_result *decide(const struct pages *p, const uint8_t *page,
                                        size_t page_len, uint32_t flags) {
    contractpin_guard_result *res = NULL;
    CHECK_STATUS(contractpin_guard_page(p->lock, U8("example"), 7, page, page_len, flags, NULL,
                                        &res, NULL),
                 CONTRACTPIN_STATUS_OK);
    return res;
}

/* The page decided under flags, given to the gate as kind; the result is
 * freed before the gate is asked anything (ASan: the gate keeps no pointer
 * into it). */
static void give(contractpin_gate *g, const struct pages *p, const uint8_t *page, size_t page_len,
                 uint32_t flags, uint32_t kind) {
    contractpin_guard_result *res = decide(p, page, page_len, flags);
    CHECK(res != NULL);
    if (res == NULL) return;
    CHECK_STATUS(contractpin_gate_page(g, res, kind), CONTRACTPIN_STATUS_OK);
    contractpin_guard_result_free(res);
}

#define CLEAN(p) (p)->clean, (p)->clean_len
#define DRIFT(p) (p)->drifted, (p)->drifted_len

static contractpin_gate *new_gate(void) {
    contractpin_gate *g = NULL;
    CHECK_STATUS(contractpin_gate_new(&g), CONTRACTPIN_STATUS_OK);
    CHECK(g != NULL);
    return g;
}

/* tests/ffi_gate.rs a_session_of_listings_changes_and_refusals. */
static void test_session(const struct pages *p) {
    contractpin_gate *g = new_gate();
    if (g == NULL) return;
    /* Nothing before the first listing. */
    ALL_VERDICTS(g, NO_LISTING);
    /* A clean listing: the four pinned tools. */
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
    /* The drifted listing replaces it. */
    give(g, p, DRIFT(p), 0, CONTRACTPIN_PAGE_FIRST);
    VERDICTS(g, DRIFTED, DRIFTED, CALLABLE, NOT_LISTED, UNPINNED);
    /* The tools changed: nothing, and a late cursor page adds nothing. */
    CHECK_STATUS(contractpin_gate_list_changed(g), CONTRACTPIN_STATUS_OK);
    ALL_VERDICTS(g, LIST_CHANGED);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    ALL_VERDICTS(g, LIST_CHANGED);
    /* Listed again. An unrequested page (any other response with a tools
     * result) only takes away what it reports (it does not add
     * export_data, which it holds), whichever mode decided it. */
    static const uint32_t modes[2] = {CONTRACTPIN_GUARD_OBSERVE, 0};
    for (int m = 0; m < 2; m++) {
        give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
        VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
        give(g, p, DRIFT(p), modes[m], CONTRACTPIN_PAGE_UNMATCHED);
        VERDICTS(g, DRIFTED, DRIFTED, CALLABLE, CALLABLE, NOT_LISTED);
    }
    /* A cursor page of the current listing adds. */
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
    /* Then one is refused: nothing is callable (the reasons the listing
     * kept still say why), and the refused listing's later pages add
     * nothing. */
    CHECK_STATUS(contractpin_gate_refused(g, CONTRACTPIN_PAGE_NEXT), CONTRACTPIN_STATUS_OK);
    VERDICTS(g, DRIFTED, DRIFTED, NOT_LISTED, NOT_LISTED, NOT_LISTED);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    VERDICTS(g, DRIFTED, DRIFTED, NOT_LISTED, NOT_LISTED, NOT_LISTED);
    /* A page decided in observe mode keeps its drifted and unpinned tools
     * (contractpin_guard_result_callable says so), but the gate gives the
     * proxy's verdicts in either mode: an observe-mode client sends a
     * refused call anyway and logs the refusal, as `contractpin proxy
     * --mode observe` does. */
    contractpin_guard_result *observed = decide(p, DRIFT(p), CONTRACTPIN_GUARD_OBSERVE);
    CHECK(observed != NULL);
    if (observed != NULL) {
        CHECK(contractpin_guard_result_callable(observed, U8("search_web"), 10) == 1);
        CHECK(contractpin_guard_result_callable(observed, U8("export_data"), 11) == 1);
        CHECK_STATUS(contractpin_gate_page(g, observed, CONTRACTPIN_PAGE_FIRST),
                     CONTRACTPIN_STATUS_OK);
        contractpin_guard_result_free(observed);
    }
    VERDICTS(g, DRIFTED, DRIFTED, CALLABLE, NOT_LISTED, UNPINNED);
    /* A refused first page leaves nothing. */
    CHECK_STATUS(contractpin_gate_refused(g, CONTRACTPIN_PAGE_FIRST), CONTRACTPIN_STATUS_OK);
    VERDICTS(g, DRIFTED, DRIFTED, NOT_LISTED, NOT_LISTED, UNPINNED);
    /* A new listing is in force again. */
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
    contractpin_gate_free(g);
}

/* tests/ffi_gate.rs
 * a_refused_cursor_page_before_any_listing_or_after_a_change_keeps_that_state,
 * and the client's own flow for a page the guard rejects. */
static void test_refused_pages(const struct pages *p) {
    contractpin_gate *g = new_gate();
    if (g == NULL) return;
    CHECK_STATUS(contractpin_gate_refused(g, CONTRACTPIN_PAGE_NEXT), CONTRACTPIN_STATUS_OK);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_UNMATCHED);
    ALL_VERDICTS(g, NO_LISTING);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    CHECK_STATUS(contractpin_gate_list_changed(g), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_gate_refused(g, CONTRACTPIN_PAGE_UNMATCHED), CONTRACTPIN_STATUS_OK);
    ALL_VERDICTS(g, LIST_CHANGED);
    contractpin_gate_free(g);

    /* A first page the guard rejects (an error status: the client does not
     * pass it on and tells the gate): nothing is callable, whatever the
     * documented reason, and that listing's cursor pages add nothing until
     * a new listing. */
    g = new_gate();
    if (g == NULL) return;
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    contractpin_guard_result *res = NULL;
    CHECK_STATUS(contractpin_guard_page(p->lock, U8("example"), 7, U8("{\"tools\":["), 10, 0,
                                        NULL, &res, NULL),
                 CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK(res == NULL);
    CHECK_STATUS(contractpin_gate_refused(g, CONTRACTPIN_PAGE_FIRST), CONTRACTPIN_STATUS_OK);
    for (int i = 0; i < 5; i++) CHECK(check(g, TOOLS[i]) != CALLABLE);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    for (int i = 0; i < 5; i++) CHECK(check(g, TOOLS[i]) != CALLABLE);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
    contractpin_gate_free(g);
}

/* After a clean listing, a failure with a live gate leaves nothing callable
 * (fail closed), a cursor page adds nothing, and a new first page restores
 * the listing. */
static void expect_refusing(contractpin_gate *g, const struct pages *p, int line) {
    static const uint32_t none[5] = {NOT_LISTED, NOT_LISTED, NOT_LISTED, NOT_LISTED, NOT_LISTED};
    static const uint32_t listed[5] = {CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED};
    expect_verdicts(g, none, line);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_NEXT);
    expect_verdicts(g, none, line);
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    expect_verdicts(g, listed, line);
}
#define REFUSING(g, p) expect_refusing((g), (p), __LINE__)

/* tests/ffi_gate.rs argument_errors_fail_closed, and names are exact
 * (pointer and length). */
static void test_argument_errors(const struct pages *p) {
    contractpin_gate *g = new_gate();
    if (g == NULL) return;
    give(g, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
    contractpin_guard_result *res = decide(p, DRIFT(p), 0);
    CHECK(res != NULL);

    /* contractpin_gate_page and contractpin_gate_refused with a live gate:
     * an unknown kind is an invalid argument, refused as a first page; a
     * NULL result is a null argument (checked before the kind), refused
     * as its kind. Each leaves the gate refusing until a new listing. */
    static const uint32_t unknown[] = {3, 255, UINT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_STATUS(contractpin_gate_page(g, res, unknown[i]),
                     CONTRACTPIN_STATUS_INVALID_ARGUMENT);
        REFUSING(g, p);
        CHECK_STATUS(contractpin_gate_refused(g, unknown[i]), CONTRACTPIN_STATUS_INVALID_ARGUMENT);
        REFUSING(g, p);
        CHECK_STATUS(contractpin_gate_page(g, NULL, unknown[i]), CONTRACTPIN_STATUS_NULL_ARGUMENT);
        REFUSING(g, p);
    }
    for (uint32_t kind = CONTRACTPIN_PAGE_FIRST; kind <= CONTRACTPIN_PAGE_UNMATCHED; kind++) {
        CHECK_STATUS(contractpin_gate_page(g, NULL, kind), CONTRACTPIN_STATUS_NULL_ARGUMENT);
        REFUSING(g, p);
    }

    /* A failed cursor page is refused as a cursor page: before any listing
     * and after a change, it keeps that state. */
    contractpin_gate *fresh = new_gate();
    if (fresh != NULL) {
        CHECK_STATUS(contractpin_gate_page(fresh, NULL, CONTRACTPIN_PAGE_NEXT),
                     CONTRACTPIN_STATUS_NULL_ARGUMENT);
        ALL_VERDICTS(fresh, NO_LISTING);
        give(fresh, p, CLEAN(p), 0, CONTRACTPIN_PAGE_FIRST);
        CHECK_STATUS(contractpin_gate_list_changed(fresh), CONTRACTPIN_STATUS_OK);
        CHECK_STATUS(contractpin_gate_page(fresh, NULL, CONTRACTPIN_PAGE_NEXT),
                     CONTRACTPIN_STATUS_NULL_ARGUMENT);
        ALL_VERDICTS(fresh, LIST_CHANGED);
        contractpin_gate_free(fresh);
    }

    /* A NULL gate is a null argument and does nothing. */
    CHECK_STATUS(contractpin_gate_page(NULL, res, CONTRACTPIN_PAGE_FIRST),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_page(NULL, res, 3), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_page(NULL, NULL, 3), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_refused(NULL, CONTRACTPIN_PAGE_FIRST),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_refused(NULL, 3), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_list_changed(NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_gate_new(NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    contractpin_gate_free(NULL);
    contractpin_guard_result_free(res);
    /* None of those touched the clean listing. */
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);

    /* contractpin_gate_check refuses what it cannot read. */
    CHECK(contractpin_gate_check(NULL, U8("translate"), 9) == INVALID);
    CHECK(contractpin_gate_check(NULL, NULL, 0) == INVALID);
    CHECK(contractpin_gate_check(g, NULL, 9) == INVALID);
    CHECK(contractpin_gate_check(g, NULL, 1) == INVALID);
    CHECK(contractpin_gate_check(g, U8("\xfftranslate"), 10) == INVALID);
    CHECK(contractpin_gate_check(g, U8("translat\xc3"), 9) == INVALID);   /* cut sequence */
    CHECK(contractpin_gate_check(g, U8("\xed\xa0\x80"), 3) == INVALID);   /* a surrogate */
    CHECK(contractpin_gate_check(g, U8("read\xc0\xaf" "file"), 10) == INVALID); /* overlong */
    /* NULL with length 0 is the empty name, which no listing held. */
    CHECK(contractpin_gate_check(g, NULL, 0) == NOT_LISTED);
    CHECK(contractpin_gate_check(g, U8(""), 0) == NOT_LISTED);

    /* Names are exact, and the length counts (no NUL termination): a
     * name decoded from JSON is given with its decoded byte length, never
     * strlen (a JSON name may hold \u0000). */
    static const char *const near[] = {"Translate", "translate ", "translat", " translate",
                                       "TRANSLATE", "search-web"};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) CHECK(check(g, near[i]) == NOT_LISTED);
    CHECK(contractpin_gate_check(g, U8("search_web\0"), 11) == NOT_LISTED);
    /* "translate\u0000" decoded: 10 bytes, not the listed tool (strlen
     * would cut it to translate). */
    CHECK(contractpin_gate_check(g, U8("translate\0"), 10) == NOT_LISTED);
    CHECK(contractpin_gate_check(g, U8("translated"), 9) == CALLABLE);
    CHECK(contractpin_gate_check(g, U8("translate"), 8) == NOT_LISTED);
    /* Still as it was after all the checks. */
    VERDICTS(g, CALLABLE, CALLABLE, CALLABLE, CALLABLE, NOT_LISTED);
    contractpin_gate_free(g);
}

/* The single line of printable ASCII, and longer than 15 characters. */
static int is_sentence(const char *s) {
    if (s == NULL || strlen(s) <= 15) return 0;
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e) return 0;
    return 1;
}

/* tests/ffi_gate.rs the_stable_numbers_names_and_messages. */
static void test_numbers_names_and_messages(void) {
    CHECK(CONTRACTPIN_PAGE_FIRST == 0 && CONTRACTPIN_PAGE_NEXT == 1 &&
          CONTRACTPIN_PAGE_UNMATCHED == 2);
    /* The words of `contractpin proxy --log` (docs/C_ABI.md), 0 to 7. */
    static const char *const names[8] = {"callable", "no-listing", "list-changed", "drifted",
                                         "unpinned", "not-listed", "no-name", "invalid-argument"};
    const uint32_t values[8] = {
        CONTRACTPIN_REFUSAL_CALLABLE,     CONTRACTPIN_REFUSAL_NO_LISTING,
        CONTRACTPIN_REFUSAL_LIST_CHANGED, CONTRACTPIN_REFUSAL_DRIFTED,
        CONTRACTPIN_REFUSAL_UNPINNED,     CONTRACTPIN_REFUSAL_NOT_LISTED,
        CONTRACTPIN_REFUSAL_NO_NAME,      CONTRACTPIN_REFUSAL_INVALID_ARGUMENT};
    CHECK(sizeof(contractpin_refusal) == 4);
    for (uint32_t i = 0; i < 8; i++) {
        CHECK(values[i] == i);
        const char *name = contractpin_refusal_name(i);
        const char *message = contractpin_refusal_message(i);
        CHECK(name != NULL && strcmp(name, names[i]) == 0);
        CHECK(is_sentence(message));
        /* Distinct messages; a name is never a message. */
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(message, contractpin_refusal_message(j)) != 0);
        CHECK(message == NULL || strcmp(message, names[i]) != 0);
        /* Static: the same string every time. */
        CHECK(contractpin_refusal_name(i) == name && contractpin_refusal_message(i) == message);
    }
    CHECK(strstr(contractpin_refusal_message(CONTRACTPIN_REFUSAL_LIST_CHANGED),
                 "notifications/tools/list_changed") != NULL);
    CHECK(strcmp(contractpin_refusal_message(CONTRACTPIN_REFUSAL_NOT_LISTED),
                 "the tool was not in the latest checked tools/list") == 0);
    static const uint32_t unknown[] = {8, 9, 99, 256, 0x7fffffffu, UINT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK(strcmp(contractpin_refusal_name(unknown[i]), "unknown-refusal") == 0);
        CHECK(strcmp(contractpin_refusal_message(unknown[i]), "unknown refusal code") == 0);
    }
}

long run_gate_tests(const char *dir) {
    struct example ex;
    long n = 0;
    if (load_example(dir, &ex) != 0) return 0;
    struct pages p = {ex.lock, ex.clean, ex.drifted, ex.clean_len, ex.drifted_len};

    test_session(&p), n++;
    test_refused_pages(&p), n++;
    test_argument_errors(&p), n++;
    test_numbers_names_and_messages(), n++;

    free_example(&ex);
    return n;
}
