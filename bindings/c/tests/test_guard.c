/* The run-time guard (contractpin_guard_page, contractpin_guard_result_*)
 * against the fixtures of testdata/: demo.lock pins `echo` and `add`;
 * tools-drifted.json changes echo's description (its live digest is
 * `drifted-echo` of expected.txt, computed with Python's json + hashlib);
 * tools-page.json has the pinned contracts in other bytes (member order,
 * whitespace, a title, _meta, nextCursor). The expected result bytes are
 * cut out of the fixtures by text search here, not asked of the library. */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

static int read_expected(const char *expected, const char *key, char *out) {
    size_t klen = strlen(key);
    for (const char *p = expected; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            size_t n = strcspn(p + klen + 1, "\n");
            if (n != CONTRACTPIN_DIGEST_TEXT_LEN) return -1;
            memcpy(out, p + klen + 1, n);
            out[n] = 0;
            return 0;
        }
    }
    return -1;
}

static contractpin_status guard(const contractpin_lock *lock, const char *server,
                                const uint8_t *page, size_t page_len, uint32_t flags,
                                contractpin_guard_result **out, size_t *offset) {
    return contractpin_guard_page(lock, U8(server), strlen(server), page, page_len, flags, NULL,
                                  out, offset);
}

static int callable(const contractpin_guard_result *res, const char *name) {
    return contractpin_guard_result_callable(res, U8(name), strlen(name));
}

/* The result bytes equal want[0..want_len], followed by a NUL. */
static int result_is(const contractpin_guard_result *res, const uint8_t *want, size_t want_len) {
    const uint8_t *bytes = NULL;
    size_t len = 0;
    if (contractpin_guard_result_bytes(res, &bytes, &len) != CONTRACTPIN_STATUS_OK) return 0;
    return len == want_len && memcmp(bytes, want, len) == 0 && bytes[len] == 0;
}

static int passed_is(const contractpin_guard_result *res, size_t i, const char *want) {
    const uint8_t *name = NULL;
    size_t len = 0;
    if (contractpin_guard_result_passed_name(res, i, &name, &len) != CONTRACTPIN_STATUS_OK)
        return 0;
    return len == strlen(want) && memcmp(name, want, len) == 0 && name[len] == 0;
}

static void test_drift(const contractpin_lock *lock, const uint8_t *drift, size_t drift_len,
                       const char *want_live) {
    contractpin_guard_result *res = NULL;
    size_t offset = 777;
    CHECK_STATUS(guard(lock, "demo", drift, drift_len, 0, &res, &offset), CONTRACTPIN_STATUS_OK);
    CHECK(res != NULL && offset == 777);
    if (res == NULL) return;

    /* add passes, echo drifted in its description. */
    CHECK(contractpin_guard_result_passed_count(res) == 1);
    CHECK(passed_is(res, 0, "add"));
    CHECK(contractpin_guard_result_event_count(res) == 1);
    const uint8_t *tool = NULL;
    size_t tool_len = 0;
    contractpin_guard_status status = 0;
    uint32_t changed = 0;
    uint8_t live[CONTRACTPIN_DIGEST_SIZE];
    char live_text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    CHECK_STATUS(contractpin_guard_result_event(res, 0, &tool, &tool_len, &status, &changed, live),
                 CONTRACTPIN_STATUS_OK);
    CHECK(tool_len == 4 && memcmp(tool, "echo", 4) == 0 && tool[4] == 0);
    CHECK(status == CONTRACTPIN_GUARD_STATUS_DRIFTED);
    CHECK(changed == 1u << CONTRACTPIN_FIELD_DESCRIPTION);
    CHECK_STATUS(contractpin_digest_to_text(live, live_text), CONTRACTPIN_STATUS_OK);
    CHECK(strcmp(live_text, want_live) == 0);

    /* The proxy's log line. */
    char want_json[256];
    snprintf(want_json, sizeof want_json,
             "{\"changed\":[\"description\"],\"live\":\"%s\",\"server\":\"demo\","
             "\"status\":\"drifted\",\"tool\":\"echo\"}",
             want_live);
    const uint8_t *json = NULL;
    size_t json_len = 0;
    CHECK_STATUS(contractpin_guard_result_event_json(res, 0, &json, &json_len),
                 CONTRACTPIN_STATUS_OK);
    CHECK(json_len == strlen(want_json) && memcmp(json, want_json, json_len) == 0);
    CHECK(json != NULL && json[json_len] == 0);

    /* The result: the page up to its '[', the add object, the page from its
     * last ']'. */
    const char *page = (const char *)drift;
    const char *open = strchr(page, '[');
    const char *close = strrchr(page, ']');
    const char *add = strstr(page, "\"name\": \"add\"");
    CHECK(open && close && add);
    if (open && close && add) {
        while (*add != '{') add--;
        const char *add_end = strstr(add, "\n    }\n  ]");
        CHECK(add_end != NULL);
        if (add_end) {
            add_end += strlen("\n    }");
            size_t a = (size_t)(open + 1 - page), b = (size_t)(add_end - add),
                   c = drift_len - (size_t)(close - page);
            uint8_t *want = malloc(a + b + c);
            CHECK(want != NULL);
            if (want) {
                memcpy(want, page, a);
                memcpy(want + a, add, b);
                memcpy(want + a + b, close, c);
                CHECK(result_is(res, want, a + b + c));
                free(want);
            }
        }
    }
    CHECK(callable(res, "add") == 1);
    CHECK(callable(res, "echo") == 0);
    CHECK(callable(res, "ad") == 0);
    CHECK(callable(res, "") == 0);
    CHECK(contractpin_guard_result_callable(res, U8("addition"), 3) == 1); /* length counts */
    CHECK(contractpin_guard_result_callable(res, NULL, 3) == 0);
    CHECK(contractpin_guard_result_callable(res, U8("\xff"), 1) == 0);

    /* Accessors: bounds and required out-parameters; nothing written on failure. */
    tool = U8("x");
    status = 0;
    CHECK_STATUS(contractpin_guard_result_event(res, 1, &tool, &tool_len, &status, NULL, NULL),
                 CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE);
    CHECK(tool[0] == 'x' && status == 0);
    CHECK_STATUS(contractpin_guard_result_event(res, 0, NULL, NULL, &status, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(status == CONTRACTPIN_GUARD_STATUS_DRIFTED);
    CHECK_STATUS(contractpin_guard_result_passed_name(res, 1, &tool, &tool_len),
                 CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(contractpin_guard_result_event_json(res, 1, &json, &json_len),
                 CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(contractpin_guard_result_bytes(res, NULL, &json_len),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_guard_result_passed_name(res, 0, &tool, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    contractpin_guard_result_free(res);

    /* Observe: the page as sent, the same event, echo callable. */
    res = NULL;
    CHECK_STATUS(guard(lock, "demo", drift, drift_len, CONTRACTPIN_GUARD_OBSERVE, &res, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(result_is(res, drift, drift_len));
    CHECK(contractpin_guard_result_event_count(res) == 1);
    CHECK(contractpin_guard_result_passed_count(res) == 1);
    CHECK(callable(res, "echo") == 1 && callable(res, "add") == 1);
    CHECK(callable(res, "fetch") == 0);
    contractpin_guard_result_free(res);
}

static void test_errors(const contractpin_lock *lock, const uint8_t *page, size_t page_len,
                        const uint8_t *response, size_t response_len) {
    contractpin_guard_result *const sentinel = (contractpin_guard_result *)&checks_run;
    contractpin_guard_result *res = sentinel;
    size_t offset = 777;

    /* Fail closed on a bad page: status and offset, out untouched. */
    CHECK_STATUS(guard(lock, "demo", U8("{\"tools\":["), 10, 0, &res, &offset),
                 CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK(offset == 10 && res == sentinel);
    static const char dup[] = "{\"tools\":[{\"name\":\"a\"},{\"name\":\"a\"}]}";
    CHECK_STATUS(guard(lock, "demo", U8(dup), strlen(dup), 0, &res, &offset),
                 CONTRACTPIN_STATUS_DUPLICATE_TOOL_NAME);
    CHECK(offset == 31 && res == sentinel);
    /* A whole JSON-RPC response is not a page (hand on its result). */
    CHECK_STATUS(guard(lock, "demo", response, response_len, 0, &res, &offset),
                 CONTRACTPIN_STATUS_NOT_TOOLS_LIST);
    CHECK(offset == 0 && res == sentinel);

    /* Not input errors: the offset is left alone. */
    offset = 777;
    CHECK_STATUS(guard(lock, "nosuch", page, page_len, 0, &res, &offset),
                 CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER);
    CHECK_STATUS(guard(lock, "demo", page, page_len, 2, &res, &offset),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(contractpin_guard_page(lock, U8("\xff"), 1, page, page_len, 0, NULL, &res,
                                        &offset),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(guard(NULL, "demo", page, page_len, 0, &res, &offset),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(guard(lock, "demo", page, page_len, 0, NULL, &offset),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_guard_page(lock, U8("demo"), 4, NULL, 5, 0, NULL, &res, &offset),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(offset == 777 && res == sentinel);

    /* Limits apply to the page. */
    contractpin_limits limits = contractpin_limits_default();
    limits.max_tools = 1;
    CHECK_STATUS(contractpin_guard_page(lock, U8("demo"), 4, page, page_len, 0, &limits, &res,
                                        &offset),
                 CONTRACTPIN_STATUS_TOOL_LIMIT);
    CHECK(res == sentinel);

    /* NULL results. */
    const uint8_t *p = NULL;
    size_t n = 0;
    CHECK(contractpin_guard_result_passed_count(NULL) == 0);
    CHECK(contractpin_guard_result_event_count(NULL) == 0);
    CHECK(contractpin_guard_result_callable(NULL, U8("add"), 3) == 0);
    CHECK_STATUS(contractpin_guard_result_bytes(NULL, &p, &n), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_guard_result_event(NULL, 0, NULL, NULL, NULL, NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    contractpin_guard_result_free(NULL);
}

long run_guard_tests(const char *dir) {
    char path[4096];
    size_t lock_len, drift_len, page_len, response_len, expected_len;
    snprintf(path, sizeof path, "%s/demo.lock", dir);
    uint8_t *lock_bytes = read_file(path, &lock_len);
    snprintf(path, sizeof path, "%s/tools-drifted.json", dir);
    uint8_t *drift = read_file(path, &drift_len);
    snprintf(path, sizeof path, "%s/tools-page.json", dir);
    uint8_t *page = read_file(path, &page_len);
    snprintf(path, sizeof path, "%s/tools.json", dir);
    uint8_t *response = read_file(path, &response_len);
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    char *expected = (char *)read_file(path, &expected_len);
    char want_live[CONTRACTPIN_DIGEST_TEXT_SIZE];
    contractpin_lock *lock = NULL;
    contractpin_guard_result *res = NULL;
    long n = 0;
    CHECK(lock_bytes && drift && page && response && expected);
    if (!(lock_bytes && drift && page && response && expected)) goto done;
    CHECK(read_expected(expected, "drifted-echo", want_live) == 0);

    CHECK_STATUS(contractpin_lock_parse(lock_bytes, lock_len, &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    if (lock == NULL) goto done;

    /* The pinned contracts in other bytes pass, and the page is kept byte
     * for byte, in both modes. */
    for (uint32_t flags = 0; flags <= CONTRACTPIN_GUARD_OBSERVE; flags++) {
        res = NULL;
        CHECK_STATUS(guard(lock, "demo", page, page_len, flags, &res, NULL),
                     CONTRACTPIN_STATUS_OK);
        CHECK(result_is(res, page, page_len));
        CHECK(contractpin_guard_result_passed_count(res) == 2);
        CHECK(passed_is(res, 0, "echo") && passed_is(res, 1, "add"));
        CHECK(contractpin_guard_result_event_count(res) == 0);
        CHECK(callable(res, "echo") == 1 && callable(res, "add") == 1);
        contractpin_guard_result_free(res);
    }
    n++;
    test_drift(lock, drift, drift_len, want_live), n++;
    test_errors(lock, page, page_len, response, response_len), n++;

    /* A result does not depend on its lock. */
    CHECK_STATUS(guard(lock, "demo", drift, drift_len, 0, &res, NULL), CONTRACTPIN_STATUS_OK);
    contractpin_lock_free(lock);
    CHECK(contractpin_guard_result_passed_count(res) == 1 && passed_is(res, 0, "add"));
    contractpin_guard_result_free(res);
    n++;

done:
    free(lock_bytes);
    free(drift);
    free(page);
    free(response);
    free(expected);
    return n;
}
