/* The instructions guard (contractpin_guard_instructions,
 * contractpin_guard_instructions_result_*) against the fixtures of
 * testdata/: instructions.lock pins, for server `acme`, the digest of vector
 * `instructions-plain` of vectors/vectors.json (vectors/reference.py), and
 * none for `bare`; initialize.json carries those instructions (one letter
 * escaped), initialize-drifted.json the text of vector
 * `instructions-injection`. The digests are copied from vectors.json; the
 * expected result bytes are written out here, not asked of the library. */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

/* `digest` of vectors instructions-plain and instructions-injection. */
static const char PLAIN[] =
    "sha256:045ac22ce609769df6e2d83a22e097c5118aa15850fbca7f5c599a54d2fb8efd";
static const char INJECTION[] =
    "sha256:2e2881ac507a24c7f7134b5599f4ab8c7999a94a369c0b4ae23b6df9c5771f7c";
/* initialize-drifted.json without its instructions member. */
static const char DRIFTED_CUT[] =
    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
    "\"serverInfo\":{\"name\":\"acme\",\"version\":\"1.0.1\"}}\n";

static contractpin_status guard(const contractpin_lock *lock, const char *server,
                                const uint8_t *result, size_t len, uint32_t flags,
                                contractpin_guard_instructions_result **out, size_t *offset) {
    return contractpin_guard_instructions(lock, U8(server), strlen(server), result, len, flags,
                                          NULL, out, offset);
}

/* The verdict is (want_status, want_live or NULL for none, want_removed). */
static int verdict_is(const contractpin_guard_instructions_result *res,
                      contractpin_instructions_status want_status, const char *want_live,
                      int want_removed) {
    contractpin_instructions_status status = 99;
    int32_t has_live = -1, removed = -1;
    uint8_t live[CONTRACTPIN_DIGEST_SIZE];
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE] = "";
    if (contractpin_guard_instructions_result_verdict(res, &status, &has_live, live, &removed) !=
        CONTRACTPIN_STATUS_OK)
        return 0;
    if (has_live == 1 && contractpin_digest_to_text(live, text) != CONTRACTPIN_STATUS_OK) return 0;
    if (status != want_status || removed != want_removed) return 0;
    if (want_live == NULL) return has_live == 0;
    return has_live == 1 && strcmp(text, want_live) == 0;
}

static int bytes_are(const contractpin_guard_instructions_result *res, const uint8_t *want,
                     size_t want_len) {
    const uint8_t *bytes = NULL;
    size_t len = 0;
    if (contractpin_guard_instructions_result_bytes(res, &bytes, &len) != CONTRACTPIN_STATUS_OK)
        return 0;
    return len == want_len && memcmp(bytes, want, len) == 0 && bytes[len] == 0;
}

/* The event line equals want (NULL: there is none, NOT_FOUND). */
static int event_is(const contractpin_guard_instructions_result *res, const char *want) {
    const uint8_t *json = NULL;
    size_t len = 0;
    contractpin_status st = contractpin_guard_instructions_result_event_json(res, &json, &len);
    if (want == NULL) return st == CONTRACTPIN_STATUS_NOT_FOUND && json == NULL;
    return st == CONTRACTPIN_STATUS_OK && len == strlen(want) && memcmp(json, want, len) == 0 &&
           json[len] == 0;
}

long run_guard_instructions_tests(const char *dir) {
    char path[4096], line[1024];
    size_t lock_len, result_len, drifted_len;
    snprintf(path, sizeof path, "%s/instructions.lock", dir);
    uint8_t *lock_bytes = read_file(path, &lock_len);
    snprintf(path, sizeof path, "%s/initialize.json", dir);
    uint8_t *result = read_file(path, &result_len);
    snprintf(path, sizeof path, "%s/initialize-drifted.json", dir);
    uint8_t *drifted = read_file(path, &drifted_len);
    contractpin_lock *lock = NULL;
    contractpin_guard_instructions_result *res = NULL;
    size_t offset = 777;
    long n = 0;
    CHECK(lock_bytes && result && drifted);
    if (!(lock_bytes && result && drifted)) goto done;
    CHECK_STATUS(contractpin_lock_parse(lock_bytes, lock_len, &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    if (lock == NULL) goto done;

    /* The pinned instructions pass byte for byte, in both modes. */
    for (uint32_t flags = 0; flags <= CONTRACTPIN_GUARD_OBSERVE; flags++) {
        CHECK_STATUS(guard(lock, "acme", result, result_len, flags, &res, &offset),
                     CONTRACTPIN_STATUS_OK);
        CHECK(offset == 777);
        CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_UNCHANGED, PLAIN, 0));
        CHECK(bytes_are(res, result, result_len));
        CHECK(event_is(res, NULL));
        contractpin_guard_instructions_result_free(res);
    }
    n++;

    /* Drifted: cut out in enforce mode, kept in observe mode. */
    CHECK_STATUS(guard(lock, "acme", drifted, drifted_len, 0, &res, NULL), CONTRACTPIN_STATUS_OK);
    CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_DRIFTED, INJECTION, 1));
    CHECK(bytes_are(res, U8(DRIFTED_CUT), strlen(DRIFTED_CUT)));
    snprintf(line, sizeof line,
             "{\"live\":\"%s\",\"pinned\":\"%s\",\"reason\":\"the server's instructions differ "
             "from the pinned ones; removed from the handshake result\",\"server\":\"acme\","
             "\"status\":\"instructions-drifted\"}",
             INJECTION, PLAIN);
    CHECK(event_is(res, line));
    contractpin_guard_instructions_result_free(res);
    CHECK_STATUS(guard(lock, "acme", drifted, drifted_len, CONTRACTPIN_GUARD_OBSERVE, &res, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_DRIFTED, INJECTION, 0));
    CHECK(bytes_are(res, drifted, drifted_len));
    contractpin_guard_instructions_result_free(res);
    n++;

    /* Added (nothing pinned for bare), removed, none. */
    CHECK_STATUS(guard(lock, "bare", result, result_len, 0, &res, NULL), CONTRACTPIN_STATUS_OK);
    CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_ADDED, PLAIN, 1));
    CHECK(bytes_are(res, U8("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":"
                            "{\"listChanged\":true}},\"serverInfo\":{\"name\":\"acme\","
                            "\"version\":\"1.0.0\"}}\n"),
                    result_len - strlen(",\"instructions\":\"\\u0055se the search tool before "
                                        "answering.\"")));
    contractpin_guard_instructions_result_free(res);
    const char *none = "{\"capabilities\":{}}";
    CHECK_STATUS(guard(lock, "acme", U8(none), strlen(none), 0, &res, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_REMOVED, NULL, 0));
    CHECK(bytes_are(res, U8(none), strlen(none)));
    snprintf(line, sizeof line,
             "{\"pinned\":\"%s\",\"reason\":\"the server's instructions were removed; nothing "
             "to hide\",\"server\":\"acme\",\"status\":\"instructions-removed\"}",
             PLAIN);
    CHECK(event_is(res, line));
    contractpin_guard_instructions_result_free(res);
    CHECK_STATUS(guard(lock, "bare", U8(none), strlen(none), 0, &res, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(verdict_is(res, CONTRACTPIN_INSTRUCTIONS_STATUS_NONE, NULL, 0));
    CHECK(event_is(res, NULL));
    contractpin_guard_instructions_result_free(res);
    n++;

    /* Fail closed: statuses with offsets; nothing written to out. */
    res = NULL;
    const char *dup = "{\"instructions\":\"a\",\"instructions\":\"b\"}";
    CHECK_STATUS(guard(lock, "acme", U8(dup), strlen(dup), 0, &res, &offset),
                 CONTRACTPIN_STATUS_DUPLICATE_KEY);
    CHECK(offset == 20 && res == NULL);
    const char *response = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
    CHECK_STATUS(guard(lock, "acme", U8(response), strlen(response), 0, &res, &offset),
                 CONTRACTPIN_STATUS_UNEXPECTED_BYTE);
    CHECK(offset == 24 && res == NULL);
    CHECK_STATUS(guard(lock, "nope", result, result_len, 0, &res, NULL),
                 CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER);
    CHECK_STATUS(guard(lock, "acme", result, result_len, 2, &res, NULL),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(guard(lock, "acme", result, result_len, 0, NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_guard_instructions_result_verdict(NULL, NULL, NULL, NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(res == NULL);
    contractpin_guard_instructions_result_free(NULL);
    n++;

done:
    contractpin_lock_free(lock);
    free(lock_bytes);
    free(result);
    free(drifted);
    return n;
}
