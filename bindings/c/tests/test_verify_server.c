/* The one-call verify of a server (contractpin_verify_server_with_limits,
 * contractpin_lock_verify_server) and the report accessors of its facts,
 * against the fixtures of testdata/verify-server/: server.lock (made by
 * `contractpin init`), and report-*.json, what `contractpin verify --format
 * json` writes for the same lock, handshake result and tools/list (gen.sh;
 * scripts/test-bindings.sh re-checks them with the CLI). The instructions
 * digests are those of vectors instructions-plain and instructions-injection
 * of vectors/vectors.json (vectors/reference.py); exit codes, statuses and
 * offsets are written out here, not asked of the library. */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

static const char PLAIN[] =
    "sha256:045ac22ce609769df6e2d83a22e097c5118aa15850fbca7f5c599a54d2fb8efd";
static const char INJECTION[] =
    "sha256:2e2881ac507a24c7f7134b5599f4ab8c7999a94a369c0b4ae23b6df9c5771f7c";

/* One case of gen.sh and what the accessors must say (NULL: no digest;
 * version_changed -1: unknown, NOT_FOUND). */
struct vcase {
    const char *report, *server, *init, *tools;
    uint32_t flags;
    int exit_code;
    uint32_t status;
    const char *pinned, *live;
    int version_changed;
};

static const struct vcase CASES[] = {
    {"report-match.json", "acme", "initialize.json", "tools.json", 0, 0,
     CONTRACTPIN_INSTRUCTIONS_STATUS_UNCHANGED, PLAIN, PLAIN, 0},
    {"report-drifted.json", "acme", "initialize-drifted.json", "tools.json", 0, 1,
     CONTRACTPIN_INSTRUCTIONS_STATUS_DRIFTED, PLAIN, INJECTION, 1},
    {"report-drifted-ignore.json", "acme", "initialize-drifted.json", "tools.json",
     CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS, 0, CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED, NULL,
     NULL, 1},
    {"report-removed.json", "acme", "verify-server/initialize-removed.json", "tools-drifted.json",
     0, 1, CONTRACTPIN_INSTRUCTIONS_STATUS_REMOVED, PLAIN, NULL, 0},
    {"report-added.json", "bare", "initialize.json", "tools.json", 0, 1,
     CONTRACTPIN_INSTRUCTIONS_STATUS_ADDED, NULL, PLAIN, 0},
    {"report-added-allow-new.json", "bare", "initialize.json", "tools.json",
     CONTRACTPIN_VERIFY_ALLOW_NEW, 0, CONTRACTPIN_INSTRUCTIONS_STATUS_ADDED, NULL, PLAIN, 0},
};

/* A digest accessor's text into `text`, or "" for NOT_FOUND (when nothing
 * may be written); 0 on any other status. */
static int digest_of(contractpin_status (*f)(const contractpin_report *, uint8_t *),
                     const contractpin_report *r, char text[CONTRACTPIN_DIGEST_TEXT_SIZE]) {
    uint8_t d[CONTRACTPIN_DIGEST_SIZE];
    memset(d, 0xa5, sizeof d);
    text[0] = 0;
    contractpin_status st = f(r, d);
    if (st == CONTRACTPIN_STATUS_NOT_FOUND) {
        for (size_t i = 0; i < sizeof d; i++)
            if (d[i] != 0xa5) return 0;
        return 1;
    }
    return st == CONTRACTPIN_STATUS_OK && contractpin_digest_to_text(d, text) == CONTRACTPIN_STATUS_OK;
}

static int digest_is(contractpin_status (*f)(const contractpin_report *, uint8_t *),
                     const contractpin_report *r, const char *want) {
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    if (!digest_of(f, r, text)) return 0;
    return want == NULL ? text[0] == 0 : strcmp(text, want) == 0;
}

static int version_changed(const contractpin_report *r) {
    int32_t c = 7;
    contractpin_status st = contractpin_report_version_changed(r, &c);
    if (st == CONTRACTPIN_STATUS_NOT_FOUND) return c == 7 ? -1 : -2;
    return st == CONTRACTPIN_STATUS_OK ? c : -2;
}

static uint32_t instructions_of(const contractpin_report *r) {
    contractpin_instructions_status s = 99;
    if (contractpin_report_instructions(r, &s) != CONTRACTPIN_STATUS_OK) return 99;
    return (uint32_t)s;
}

/* The report's JSON equals the `want` bytes. */
static int json_is(const contractpin_report *r, const uint8_t *want, size_t want_len) {
    size_t need = 0;
    if (contractpin_report_json(r, NULL, 0, &need) != CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL) return 0;
    uint8_t *buf = malloc(need);
    if (buf == NULL) return 0;
    int ok = contractpin_report_json(r, buf, need, &need) == CONTRACTPIN_STATUS_OK &&
             need == want_len && memcmp(buf, want, need) == 0;
    free(buf);
    return ok;
}

static uint8_t *load(const char *dir, const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return read_file(path, len);
}

static void check_report(const contractpin_report *r, const struct vcase *c, const uint8_t *want,
                         size_t want_len) {
    CHECK(json_is(r, want, want_len));
    CHECK(contractpin_report_exit_code(r) == c->exit_code);
    CHECK(instructions_of(r) == c->status);
    CHECK(digest_is(contractpin_report_instructions_pinned_digest, r, c->pinned));
    CHECK(digest_is(contractpin_report_instructions_live_digest, r, c->live));
    CHECK(version_changed(r) == c->version_changed);
}

/* Each case through both calls; 1 when every file was there. */
static int run_case(const char *dir, const contractpin_lock *lock, const uint8_t *lock_bytes,
                    size_t lock_len, const struct vcase *c) {
    char name[256];
    size_t want_len, init_len, tools_len;
    snprintf(name, sizeof name, "verify-server/%s", c->report);
    uint8_t *want = load(dir, name, &want_len);
    uint8_t *init = load(dir, c->init, &init_len);
    uint8_t *tools = load(dir, c->tools, &tools_len);
    int ok = want && init && tools;
    CHECK(ok);
    if (ok) {
        contractpin_report *r = NULL;
        CHECK_STATUS(contractpin_lock_verify_server(lock, U8(c->server), strlen(c->server), init,
                                                    init_len, tools, tools_len, c->flags, NULL, &r,
                                                    NULL, NULL),
                     CONTRACTPIN_STATUS_OK);
        if (r != NULL) check_report(r, c, want, want_len);
        contractpin_report_free(r);
        r = NULL;
        CHECK_STATUS(contractpin_verify_server_with_limits(
                         lock_bytes, lock_len, U8(c->server), strlen(c->server), init, init_len,
                         tools, tools_len, c->flags, NULL, &r, NULL, NULL),
                     CONTRACTPIN_STATUS_OK);
        if (r != NULL) check_report(r, c, want, want_len);
        contractpin_report_free(r);
    }
    free(want);
    free(init);
    free(tools);
    return ok;
}

long run_verify_server_tests(const char *dir) {
    size_t lock_len, tools_len;
    uint8_t *lock_bytes = load(dir, "verify-server/server.lock", &lock_len);
    uint8_t *tools = load(dir, "tools.json", &tools_len);
    contractpin_lock *lock = NULL;
    contractpin_report *r = NULL;
    long n = 0;
    CHECK(lock_bytes && tools);
    if (!(lock_bytes && tools)) goto done;
    CHECK_STATUS(contractpin_lock_parse(lock_bytes, lock_len, &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    if (lock == NULL) goto done;

    /* The CLI's report and verdict, from both calls. */
    int all = 1;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        all &= run_case(dir, lock, lock_bytes, lock_len, &CASES[i]);
    if (all) n++;

    /* A report of the tools-only call: facts not checked. */
    CHECK_STATUS(contractpin_lock_verify(lock, U8("acme"), 4, tools, tools_len,
                                         CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS, NULL, &r, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(instructions_of(r) == CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED);
    CHECK(digest_is(contractpin_report_instructions_pinned_digest, r, NULL));
    CHECK(version_changed(r) == -1);
    contractpin_report_free(r);
    n++;

    /* Fail closed: offsets and the input they are into; out not written. */
    size_t offset = 777;
    contractpin_input input = 99;
    r = NULL;
    const char *response = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, U8(response), strlen(response),
                                                tools, tools_len, 0, NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_UNEXPECTED_BYTE);
    CHECK(offset == 24 && input == CONTRACTPIN_INPUT_INITIALIZE_RESULT && r == NULL);
    const char *dup = "{\"serverInfo\":1,\"serverInfo\":2}";
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, U8(dup), strlen(dup), tools,
                                                tools_len, 0, NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_DUPLICATE_KEY);
    CHECK(offset == 16 && input == CONTRACTPIN_INPUT_INITIALIZE_RESULT && r == NULL);
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, U8("{}"), 2, U8("[7]"), 3, 0,
                                                NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_TOOL_NOT_OBJECT);
    CHECK(offset == 1 && input == CONTRACTPIN_INPUT_TOOLS_LIST && r == NULL);
    CHECK_STATUS(contractpin_verify_server_with_limits(U8("{\"a\""), 4, U8("acme"), 4, U8("{}"), 2,
                                                       tools, tools_len, 0, NULL, &r, &offset,
                                                       &input),
                 CONTRACTPIN_STATUS_LOCK_SYNTAX);
    CHECK(offset == 4 && input == CONTRACTPIN_INPUT_LOCK && r == NULL);
    n++;

    /* Argument errors: no offset, no input. */
    offset = 777;
    input = 99;
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, U8("{}"), 2, tools, tools_len,
                                                4, NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("nope"), 4, U8("{}"), 2, tools, tools_len,
                                                0, NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER);
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, NULL, 2, tools, tools_len, 0,
                                                NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_lock_verify_server(NULL, U8("acme"), 4, U8("{}"), 2, tools, tools_len,
                                                0, NULL, &r, &offset, &input),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_lock_verify_server(lock, U8("acme"), 4, U8("{}"), 2, tools, tools_len,
                                                0, NULL, NULL, &offset, &input),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(offset == 777 && input == 99 && r == NULL);
    CHECK_STATUS(contractpin_report_instructions(NULL, NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_report_version_changed(NULL, NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_report_instructions_live_digest(NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    n++;

done:
    contractpin_lock_free(lock);
    free(lock_bytes);
    free(tools);
    return n;
}
