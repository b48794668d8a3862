/* ABI edge cases: NULLs, zero lengths, buffer sizes, error offsets,
 * statuses, ownership, and run-time verification against fixtures whose
 * digests were computed independently (testdata/expected.txt). */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

static const char ECHO[] =
    "{\"name\":\"echo\",\"title\":\"ignored\",\"inputSchema\":{\"type\":\"object\","
    "\"properties\":{\"text\":{\"type\":\"string\"}}},\"description\":\"Echo back\"}";
static const char ECHO_DIGEST[] =
    "sha256:6f03644ed9f8359b37fef4fee1a2525b6f6bf05124ec4fbb4af7fd17e01e0c13";
static const char SHA_ABC[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char SHA_EMPTY[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static int all_bytes(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

static void test_version_and_status_names(void) {
    CHECK(strcmp(contractpin_version(), CONTRACTPIN_VERSION_STRING) == 0);
    CHECK(contractpin_version_major() == CONTRACTPIN_VERSION_MAJOR);
    CHECK(contractpin_version_minor() == CONTRACTPIN_VERSION_MINOR);
    CHECK(contractpin_version_patch() == CONTRACTPIN_VERSION_PATCH);
    CHECK(strcmp(contractpin_status_name(CONTRACTPIN_STATUS_OK), "ok") == 0);
    CHECK(strcmp(contractpin_status_name(CONTRACTPIN_STATUS_DUPLICATE_KEY), "duplicate-key") == 0);
    CHECK(strcmp(contractpin_status_name(CONTRACTPIN_STATUS_NULL_ARGUMENT), "null-argument") == 0);
    CHECK(strcmp(contractpin_status_name(CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER),
                 "lock-unknown-server") == 0);
    CHECK(strcmp(contractpin_status_name(9999), "unknown-status") == 0);
    CHECK(strcmp(contractpin_status_message(9999), "unknown status code") == 0);
    CHECK(strcmp(contractpin_status_message(CONTRACTPIN_STATUS_TRAILING_DATA),
                 "data after the top-level JSON value") == 0);
    for (uint32_t s = 0; s < 200; s++) {
        CHECK(contractpin_status_name(s) != NULL && contractpin_status_message(s) != NULL);
    }
    CHECK(strcmp(contractpin_field_name(CONTRACTPIN_FIELD_INPUT_SCHEMA), "inputSchema") == 0);
    CHECK(contractpin_field_name(CONTRACTPIN_FIELD_COUNT) == NULL);
}

static void test_canonicalize(void) {
    const char *in = "{\"b\":1,\"a\":[1.0,\"\\u0041\",1e21,-0,0.000001,1e-7]}";
    const char *want = "{\"a\":[1,\"A\",1e+21,0,0.000001,1e-7],\"b\":1}";
    uint8_t out[64];
    size_t len = 12345, off = 12345;
    memset(out, 0xAA, sizeof out);
    CHECK_STATUS(contractpin_canonicalize(U8(in), strlen(in), out, sizeof out, &len, &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK(len == strlen(want) && memcmp(out, want, len) == 0);
    CHECK(out[len] == 0xAA);
    CHECK(off == 12345);

    /* Too small: needed size, buffer untouched. */
    memset(out, 0xAA, sizeof out);
    CHECK_STATUS(contractpin_canonicalize(U8(in), strlen(in), out, 10, &len, &off),
                 CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL);
    CHECK(len == strlen(want));
    CHECK(all_bytes(out, sizeof out, 0xAA));
    /* Exactly the needed size. */
    CHECK_STATUS(contractpin_canonicalize(U8(in), strlen(in), out, strlen(want), &len, NULL),
                 CONTRACTPIN_STATUS_OK);
    /* Size query. */
    len = 0;
    CHECK_STATUS(contractpin_canonicalize(U8(in), strlen(in), NULL, 0, &len, NULL),
                 CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL);
    CHECK(len == strlen(want));
}

static void test_errors_and_offsets(void) {
    static const struct {
        const char *in;
        size_t len;
        uint32_t status;
        size_t offset;
    } cases[] = {
        {"{\"a\":1,}", 8, CONTRACTPIN_STATUS_UNEXPECTED_BYTE, 7},
        {"", 0, CONTRACTPIN_STATUS_UNEXPECTED_END, 0},
        {"   ", 3, CONTRACTPIN_STATUS_UNEXPECTED_END, 3},
        {"[1] x", 5, CONTRACTPIN_STATUS_TRAILING_DATA, 4},
        {"{\"a\":1,\"\\u0061\":2}", 18, CONTRACTPIN_STATUS_DUPLICATE_KEY, 7},
        {"\xEF\xBB\xBF{}", 5, CONTRACTPIN_STATUS_BYTE_ORDER_MARK, 0},
        {"[01]", 4, CONTRACTPIN_STATUS_INVALID_NUMBER, 1},
        {"[1e400]", 7, CONTRACTPIN_STATUS_NUMBER_OUT_OF_RANGE, 1},
        {"[\"\\ud800\"]", 10, CONTRACTPIN_STATUS_LONE_SURROGATE, 2},
        {"[\"a\x01\"]", 6, CONTRACTPIN_STATUS_CONTROL_CHARACTER, 3},
        {"[\"\xC0\xAF\"]", 6, CONTRACTPIN_STATUS_INVALID_UTF8, 2},
        {"[\"\\x\"]", 6, CONTRACTPIN_STATUS_INVALID_ESCAPE, 2},
        {"[1, 2", 5, CONTRACTPIN_STATUS_UNEXPECTED_END, 5},
        {"[1]\0", 4, CONTRACTPIN_STATUS_TRAILING_DATA, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[32];
        size_t len = 777, off = 777;
        memset(out, 0xAA, sizeof out);
        uint32_t st = contractpin_canonicalize(U8(cases[i].in), cases[i].len, out, sizeof out,
                                               &len, &off);
        CHECK_STATUS(st, cases[i].status);
        if (off != cases[i].offset)
            fprintf(stderr, "case %zu: offset %zu, expected %zu\n", i, off, cases[i].offset);
        CHECK(off == cases[i].offset);
        CHECK(len == 777);
        CHECK(all_bytes(out, sizeof out, 0xAA));
    }
}

static void test_null_and_zero_length(void) {
    uint8_t out[8];
    size_t len = 7, off = 99;
    CHECK_STATUS(contractpin_canonicalize(NULL, 0, out, sizeof out, &len, &off),
                 CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK(len == 7 && off == 0);
    off = 99;
    CHECK_STATUS(contractpin_canonicalize(NULL, 5, out, sizeof out, &len, &off),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(len == 7 && off == 99);
    CHECK_STATUS(contractpin_canonicalize(U8("1"), 1, out, sizeof out, NULL, &off),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_canonicalize(U8("1"), 1, NULL, 8, &len, &off),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_canonicalize(U8("1"), SIZE_MAX, out, sizeof out, &len, &off),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    uint8_t raw[CONTRACTPIN_DIGEST_SIZE];
    CHECK_STATUS(contractpin_tool_digest(NULL, 0, text, &off), CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK_STATUS(contractpin_tool_digest(U8(ECHO), strlen(ECHO), NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_tool_digest_bytes(U8(ECHO), strlen(ECHO), NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_digest_to_text(NULL, text), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_digest_to_text(raw, NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    contractpin_server *server = NULL;
    CHECK_STATUS(contractpin_digest_tools_list(NULL, 0, &server, NULL),
                 CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK(server == NULL);
    CHECK_STATUS(contractpin_digest_tools_list(U8("[]"), 2, NULL, NULL),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    /* An empty tools list is valid: zero tools. */
    CHECK_STATUS(contractpin_digest_tools_list(U8("[]"), 2, &server, NULL), CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_server_tool_count(server) == 0);
    contractpin_server_free(server);
    /* NULL objects. */
    contractpin_server_free(NULL);
    contractpin_report_free(NULL);
    CHECK(contractpin_server_tool_count(NULL) == 0);
    CHECK(contractpin_report_tool_count(NULL) == 0);
    CHECK(contractpin_report_exit_code(NULL) == 2);
    CHECK_STATUS(contractpin_server_digest(NULL, raw), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_report_json(NULL, NULL, 0, &len), CONTRACTPIN_STATUS_NULL_ARGUMENT);
}

static void test_tool_digest(void) {
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE + 8];
    uint8_t raw[CONTRACTPIN_DIGEST_SIZE], again_raw[CONTRACTPIN_DIGEST_SIZE];
    char again[CONTRACTPIN_DIGEST_TEXT_SIZE];
    size_t off = 5;
    memset(text, 'x', sizeof text);
    CHECK_STATUS(contractpin_tool_digest(U8(ECHO), strlen(ECHO), text, &off), CONTRACTPIN_STATUS_OK);
    CHECK(strlen(text) == CONTRACTPIN_DIGEST_TEXT_LEN);
    CHECK(strcmp(text, ECHO_DIGEST) == 0);
    CHECK(text[CONTRACTPIN_DIGEST_TEXT_SIZE] == 'x');
    CHECK(off == 5);
    CHECK_STATUS(contractpin_tool_digest_bytes(U8(ECHO), strlen(ECHO), raw, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_digest_to_text(raw, again), CONTRACTPIN_STATUS_OK);
    CHECK(strcmp(again, ECHO_DIGEST) == 0);
    /* Errors leave the output alone. */
    memset(again_raw, 7, sizeof again_raw);
    CHECK_STATUS(contractpin_tool_digest_bytes(U8("{\"name\":1}"), 10, again_raw, &off),
                 CONTRACTPIN_STATUS_NAME_NOT_STRING);
    CHECK(off == 8);
    CHECK(all_bytes(again_raw, sizeof again_raw, 7));
    CHECK_STATUS(contractpin_tool_digest_bytes(U8("[]"), 2, again_raw, &off),
                 CONTRACTPIN_STATUS_TOOL_NOT_OBJECT);
    /* The contract bytes. */
    const char *contract = "{\"description\":\"Echo back\",\"inputSchema\":{\"properties\":"
                           "{\"text\":{\"type\":\"string\"}},\"type\":\"object\"},\"name\":\"echo\"}";
    uint8_t buf[256];
    size_t len = 0;
    CHECK_STATUS(contractpin_tool_contract(U8(ECHO), strlen(ECHO), buf, sizeof buf, &len, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(len == strlen(contract) && memcmp(buf, contract, len) == 0);
}

static void test_sha256(void) {
    contractpin_sha256 state, fork;
    uint8_t out[32];
    char hex[65];
    memset(&state, 0, sizeof state);
    CHECK(sizeof(contractpin_sha256) == CONTRACTPIN_SHA256_STATE_SIZE);
    CHECK_STATUS(contractpin_sha256_update(&state, U8("a"), 1), CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(contractpin_sha256_init(&state), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_update(&state, U8("a"), 1), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_update(&state, NULL, 0), CONTRACTPIN_STATUS_OK);
    fork = state; /* a byte copy is an independent state */
    CHECK_STATUS(contractpin_sha256_update(&state, U8("bc"), 2), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_final(&state, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, SHA_ABC) == 0);
    CHECK_STATUS(contractpin_sha256_final(&state, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, SHA_EMPTY) == 0);
    CHECK_STATUS(contractpin_sha256_update(&fork, U8("bc"), 2), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_final(&fork, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, SHA_ABC) == 0);
    CHECK_STATUS(contractpin_sha256_init(NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_sha256_update(&state, NULL, 3), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_sha256_final(&state, NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_sha256_digest(U8("abc"), 3, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, SHA_ABC) == 0);
    /* FIPS 180-4: the 896-bit message, fed one byte at a time. */
    const char *m = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                    "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    CHECK_STATUS(contractpin_sha256_init(&state), CONTRACTPIN_STATUS_OK);
    for (size_t i = 0; m[i]; i++) CHECK_STATUS(contractpin_sha256_update(&state, U8(m + i), 1), 0);
    CHECK_STATUS(contractpin_sha256_final(&state, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1") == 0);
    const char *backend = contractpin_sha256_backend();
    CHECK(strcmp(backend, "sha-ni") == 0 || strcmp(backend, "arm-sha2") == 0 ||
          strcmp(backend, "portable") == 0);
}

/* A state whose bytes were overwritten is refused: every byte of a live
 * state, flipped three ways, makes update and final return
 * INVALID_ARGUMENT, leave the state as it was and write no digest. */
static void test_sha256_overwritten_state(void) {
    static const unsigned char flips[] = {0x01, 0x80, 0xff};
    contractpin_sha256 live, bad, before;
    unsigned char *bytes = (unsigned char *)&bad;
    uint8_t out[32];
    char hex[65];
    CHECK_STATUS(contractpin_sha256_init(&live), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_update(&live, U8("ab"), 2), CONTRACTPIN_STATUS_OK);
    for (size_t i = 0; i < sizeof bad; i++) {
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(&bad, &live, sizeof bad);
            bytes[i] ^= flips[f];
            memcpy(&before, &bad, sizeof bad);
            memset(out, 0x11, sizeof out);
            CHECK_STATUS(contractpin_sha256_update(&bad, U8("c"), 1),
                         CONTRACTPIN_STATUS_INVALID_ARGUMENT);
            CHECK_STATUS(contractpin_sha256_final(&bad, out), CONTRACTPIN_STATUS_INVALID_ARGUMENT);
            CHECK(memcmp(&bad, &before, sizeof bad) == 0);
            CHECK(all_bytes(out, sizeof out, 0x11));
        }
    }
    /* A state the caller zeroed or filled is refused too. */
    memset(&bad, 0xff, sizeof bad);
    CHECK_STATUS(contractpin_sha256_final(&bad, out), CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    /* The live state was never touched. */
    CHECK_STATUS(contractpin_sha256_update(&live, U8("c"), 1), CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_sha256_final(&live, out), CONTRACTPIN_STATUS_OK);
    hex_encode(out, 32, hex);
    CHECK(strcmp(hex, SHA_ABC) == 0);
}

static void test_limits(void) {
    contractpin_limits limits = contractpin_limits_default();
    CHECK(limits.max_depth == 256 && limits.max_tools == 100000);
    CHECK(limits.max_input == (size_t)64 << 20);
    limits.max_depth = 2;
    uint8_t out[16];
    size_t len, off = 0;
    CHECK_STATUS(contractpin_canonicalize_with_limits(U8("[[1]]"), 5, &limits, out, sizeof out,
                                                      &len, &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK_STATUS(contractpin_canonicalize_with_limits(U8("[[[1]]]"), 7, &limits, out, sizeof out,
                                                      &len, &off),
                 CONTRACTPIN_STATUS_DEPTH_LIMIT);
    CHECK(off == 2);
    limits = contractpin_limits_default();
    limits.max_tools = 1;
    contractpin_server *server = NULL;
    const char *two = "[{\"name\":\"a\"},{\"name\":\"b\"}]";
    CHECK_STATUS(contractpin_digest_tools_list_with_limits(U8(two), strlen(two), &limits, &server,
                                                           NULL),
                 CONTRACTPIN_STATUS_TOOL_LIMIT);
    CHECK(server == NULL);
    /* Deep nesting is an error, never a crash. */
    size_t deep = 100000;
    uint8_t *doc = malloc(deep * 2);
    memset(doc, '[', deep);
    memset(doc + deep, ']', deep);
    CHECK_STATUS(contractpin_canonicalize(doc, deep * 2, NULL, 0, &len, &off),
                 CONTRACTPIN_STATUS_DEPTH_LIMIT);
    CHECK(off == 256);
    free(doc);
}

/* Reads "KEY VALUE" or "tool NAME VALUE" lines of testdata/expected.txt. */
static int expected_value(const char *expected, const char *key, char *out) {
    size_t klen = strlen(key);
    const char *p = expected;
    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, "\n");
            if (n != CONTRACTPIN_DIGEST_TEXT_LEN) return -1;
            memcpy(out, v, n);
            out[n] = 0;
            return 0;
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
    return -1;
}

static void test_server_and_verify(const char *dir) {
    char path[4096];
    size_t list_len, lock_len, drift_len, added_len, exp_len;
    snprintf(path, sizeof path, "%s/tools.json", dir);
    uint8_t *list = read_file(path, &list_len);
    snprintf(path, sizeof path, "%s/demo.lock", dir);
    uint8_t *lock = read_file(path, &lock_len);
    snprintf(path, sizeof path, "%s/tools-drifted.json", dir);
    uint8_t *drift = read_file(path, &drift_len);
    snprintf(path, sizeof path, "%s/tools-added.json", dir);
    uint8_t *added = read_file(path, &added_len);
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    char *expected = (char *)read_file(path, &exp_len);
    CHECK(list && lock && drift && added && expected);
    if (!(list && lock && drift && added && expected)) {
        fprintf(stderr, "testdata missing in %s\n", dir);
        goto done;
    }

    char want_server[72], want_echo[72], want_add[72], want_drift[72], want_drift_desc[72];
    CHECK(expected_value(expected, "server", want_server) == 0);
    CHECK(expected_value(expected, "tool echo", want_echo) == 0);
    CHECK(expected_value(expected, "tool add", want_add) == 0);
    CHECK(expected_value(expected, "drifted-echo", want_drift) == 0);
    CHECK(expected_value(expected, "drifted-echo-description", want_drift_desc) == 0);

    contractpin_server *server = NULL;
    CHECK_STATUS(contractpin_digest_tools_list(list, list_len, &server, NULL), CONTRACTPIN_STATUS_OK);
    uint8_t raw[32];
    char text[72];
    CHECK_STATUS(contractpin_server_digest(server, raw), CONTRACTPIN_STATUS_OK);
    contractpin_digest_to_text(raw, text);
    CHECK(strcmp(text, want_server) == 0);
    CHECK(contractpin_server_tool_count(server) == 2);
    const uint8_t *name = NULL;
    size_t name_len = 0, index = 9;
    CHECK_STATUS(contractpin_server_tool_name(server, 0, &name, &name_len), CONTRACTPIN_STATUS_OK);
    CHECK(name_len == 3 && memcmp(name, "add", 3) == 0 && name[3] == 0);
    CHECK_STATUS(contractpin_server_tool_digest(server, 0, raw), CONTRACTPIN_STATUS_OK);
    contractpin_digest_to_text(raw, text);
    CHECK(strcmp(text, want_add) == 0);
    CHECK_STATUS(contractpin_server_find_tool(server, U8("echo"), 4, &index), CONTRACTPIN_STATUS_OK);
    CHECK(index == 1);
    CHECK_STATUS(contractpin_server_tool_digest(server, index, raw), CONTRACTPIN_STATUS_OK);
    contractpin_digest_to_text(raw, text);
    CHECK(strcmp(text, want_echo) == 0);
    uint32_t mask = 0;
    CHECK_STATUS(contractpin_server_tool_fields(server, 1, &mask), CONTRACTPIN_STATUS_OK);
    CHECK(mask == (1u << CONTRACTPIN_FIELD_ANNOTATIONS | 1u << CONTRACTPIN_FIELD_DESCRIPTION |
                   1u << CONTRACTPIN_FIELD_INPUT_SCHEMA | 1u << CONTRACTPIN_FIELD_NAME));
    CHECK_STATUS(contractpin_server_tool_field_digest(server, 1, CONTRACTPIN_FIELD_OUTPUT_SCHEMA, raw),
                 CONTRACTPIN_STATUS_FIELD_ABSENT);
    CHECK_STATUS(contractpin_server_tool_field_digest(server, 1, 17, raw),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(contractpin_server_tool_digest(server, 2, raw), CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_STATUS(contractpin_server_find_tool(server, U8("nope"), 4, &index),
                 CONTRACTPIN_STATUS_NOT_FOUND);
    contractpin_server_free(server);

    /* Unchanged. */
    contractpin_report *report = NULL;
    size_t off = 0;
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, list, list_len, 0, &report, &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_report_exit_code(report) == 0);
    CHECK(contractpin_report_tool_count(report) == 2);
    contractpin_report_free(report);

    /* Drifted description. */
    report = NULL;
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, drift, drift_len, 0, &report,
                                    &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_report_exit_code(report) == 1);
    uint32_t status = 99, changed = 99;
    CHECK_STATUS(contractpin_report_tool(report, 1, &name, &name_len, &status, &changed),
                 CONTRACTPIN_STATUS_OK);
    CHECK(name_len == 4 && memcmp(name, "echo", 4) == 0);
    CHECK(status == CONTRACTPIN_TOOL_STATUS_DRIFTED);
    CHECK(changed == 1u << CONTRACTPIN_FIELD_DESCRIPTION);
    CHECK_STATUS(contractpin_report_tool_live_digest(report, 1, raw), CONTRACTPIN_STATUS_OK);
    contractpin_digest_to_text(raw, text);
    CHECK(strcmp(text, want_drift) == 0);
    CHECK_STATUS(contractpin_report_tool_pinned_digest(report, 1, raw), CONTRACTPIN_STATUS_OK);
    contractpin_digest_to_text(raw, text);
    CHECK(strcmp(text, want_echo) == 0);
    CHECK_STATUS(contractpin_report_tool(report, 0, NULL, NULL, &status, NULL), CONTRACTPIN_STATUS_OK);
    CHECK(status == CONTRACTPIN_TOOL_STATUS_UNCHANGED);
    CHECK_STATUS(contractpin_report_tool(report, 2, NULL, NULL, &status, NULL),
                 CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE);
    size_t need = 0, got = 0;
    CHECK_STATUS(contractpin_report_json(report, NULL, 0, &need), CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL);
    char *json = malloc(need + 1);
    CHECK_STATUS(contractpin_report_json(report, (uint8_t *)json, need, &got), CONTRACTPIN_STATUS_OK);
    CHECK(got == need);
    json[got] = 0;
    CHECK(strstr(json, "\"status\": \"drifted\"") != NULL);
    CHECK(strstr(json, "\"exit_code\": 1") != NULL);
    free(json);
    contractpin_report_free(report);

    /* Added: exit 1, or 0 with ALLOW_NEW. */
    report = NULL;
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, added, added_len, 0, &report, &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_report_exit_code(report) == 1);
    CHECK_STATUS(contractpin_report_tool(report, 2, &name, &name_len, &status, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(status == CONTRACTPIN_TOOL_STATUS_ADDED && name_len == 5);
    contractpin_report_free(report);
    report = NULL;
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, added, added_len,
                                    CONTRACTPIN_VERIFY_ALLOW_NEW, &report, &off),
                 CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_report_exit_code(report) == 0);
    size_t n_unchanged = 0, n_added = 0;
    CHECK_STATUS(contractpin_report_counts(report, &n_unchanged, NULL, &n_added, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(n_unchanged == 2 && n_added == 1);
    contractpin_report_free(report);

    /* Errors: nothing allocated, out untouched. */
    report = NULL;
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("other"), 5, list, list_len, 0, &report, &off),
                 CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER);
    CHECK_STATUS(contractpin_verify(lock, lock_len - 10, U8("demo"), 4, list, list_len, 0, &report,
                                    &off),
                 CONTRACTPIN_STATUS_LOCK_SYNTAX);
    CHECK(off == lock_len - 10);
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, list, list_len - 3, 0, &report,
                                    &off),
                 CONTRACTPIN_STATUS_UNEXPECTED_END);
    CHECK(off == list_len - 3);
    CHECK_STATUS(contractpin_verify(lock, lock_len, U8("demo"), 4, list, list_len, 0x80, &report,
                                    &off),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(contractpin_verify(lock, lock_len, NULL, 4, list, list_len, 0, &report, &off),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(report == NULL);

done:
    free(list);
    free(lock);
    free(drift);
    free(added);
    free(expected);
}

/* A copy of `src` (NUL-terminated) with the first `from` replaced by `to`;
 * NULL if `from` does not occur. Free with free(). */
static char *replace_once(const char *src, const char *from, const char *to) {
    const char *at = strstr(src, from);
    if (at == NULL) return NULL;
    size_t head = (size_t)(at - src), from_len = strlen(from), to_len = strlen(to);
    size_t tail = strlen(at + from_len);
    char *out = malloc(head + to_len + tail + 1);
    if (out == NULL) return NULL;
    memcpy(out, src, head);
    memcpy(out + head, to, to_len);
    memcpy(out + head + to_len, at + from_len, tail + 1);
    return out;
}

/* The flags of contractpin_verify, contractpin_verify_with_limits and
 * contractpin_lock_verify are what the header lists: ALLOW_NEW and
 * IGNORE_INSTRUCTIONS (without effect on these calls) in any combination;
 * every other bit, alone or with the known ones, is INVALID_ARGUMENT and
 * nothing is written. */
static void test_verify_flags(const char *dir) {
    char path[4096];
    size_t lock_len, added_len;
    snprintf(path, sizeof path, "%s/demo.lock", dir);
    uint8_t *lock_bytes = read_file(path, &lock_len);
    snprintf(path, sizeof path, "%s/tools-added.json", dir);
    uint8_t *added = read_file(path, &added_len);
    contractpin_lock *lock = NULL;
    CHECK(lock_bytes && added);
    if (!(lock_bytes && added)) goto done;
    CHECK_STATUS(contractpin_lock_parse(lock_bytes, lock_len, &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    contractpin_limits limits = contractpin_limits_default();

    for (int call = 0; call < 3; call++) {
        /* The documented bits: accepted; ALLOW_NEW decides the verdict on a
         * list with an added tool, IGNORE_INSTRUCTIONS changes nothing. */
        const uint32_t known[] = {0, CONTRACTPIN_VERIFY_ALLOW_NEW,
                                  CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS,
                                  CONTRACTPIN_VERIFY_ALLOW_NEW |
                                      CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS};
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
            uint32_t flags = known[k];
            contractpin_report *report = NULL;
            contractpin_status st =
                call == 0   ? contractpin_verify(lock_bytes, lock_len, U8("demo"), 4, added,
                                                 added_len, flags, &report, NULL)
                : call == 1 ? contractpin_verify_with_limits(lock_bytes, lock_len, U8("demo"), 4,
                                                             added, added_len, flags, &limits,
                                                             &report, NULL)
                            : contractpin_lock_verify(lock, U8("demo"), 4, added, added_len, flags,
                                                      &limits, &report, NULL);
            CHECK_STATUS(st, CONTRACTPIN_STATUS_OK);
            CHECK(report != NULL);
            CHECK(contractpin_report_exit_code(report) ==
                  (flags & CONTRACTPIN_VERIFY_ALLOW_NEW ? 0 : 1));
            uint32_t instructions = 99;
            CHECK_STATUS(contractpin_report_instructions(report, &instructions),
                         CONTRACTPIN_STATUS_OK);
            CHECK(instructions == CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED);
            contractpin_report_free(report);
        }
        /* Every other bit. */
        for (unsigned bit = 2; bit < 32; bit++) {
            for (uint32_t with = 0; with <= 3; with += 3) {
                uint32_t flags = (UINT32_C(1) << bit) | with;
                contractpin_report *report = NULL;
                size_t off = 777;
                contractpin_status st =
                    call == 0   ? contractpin_verify(lock_bytes, lock_len, U8("demo"), 4, added,
                                                     added_len, flags, &report, &off)
                    : call == 1 ? contractpin_verify_with_limits(lock_bytes, lock_len, U8("demo"),
                                                                 4, added, added_len, flags,
                                                                 &limits, &report, &off)
                                : contractpin_lock_verify(lock, U8("demo"), 4, added, added_len,
                                                          flags, &limits, &report, &off);
                if (st != CONTRACTPIN_STATUS_INVALID_ARGUMENT)
                    fprintf(stderr, "verify call %d, flags 0x%x\n", call, (unsigned)flags);
                CHECK_STATUS(st, CONTRACTPIN_STATUS_INVALID_ARGUMENT);
                CHECK(report == NULL && off == 777);
                contractpin_report_free(report);
            }
        }
    }

done:
    contractpin_lock_free(lock);
    free(lock_bytes);
    free(added);
}

/* A (pointer, length) string returned by the library: never NULL, and
 * readable for length + 1 bytes, the last a NUL; equal to `want`. */
static int lent_string_is(const uint8_t *p, size_t len, const char *want) {
    if (p == NULL || len != strlen(want)) return 0;
    return memcmp(p, want, len) == 0 && p[len] == 0;
}

/* The lock accessors that lend out strings (server names, error path and
 * detail) never return a NULL or dangling pointer, not even for an empty
 * string, and follow every string with a NUL. */
static void test_lock_strings(const char *dir) {
    char path[4096];
    size_t lock_len;
    snprintf(path, sizeof path, "%s/demo.lock", dir);
    char *text = (char *)read_file(path, &lock_len);
    char *invalid = text ? replace_once(text, "\"tool_count\": 2", "\"tool_count\": 3") : NULL;
    char *unnamed = text ? replace_once(text, "\"demo\": {", "\"\": {") : NULL;
    CHECK(text && invalid && unnamed);
    if (!(text && invalid && unnamed)) goto done;

    /* A syntax error: empty path and detail. */
    contractpin_lock *lock = NULL;
    contractpin_lock_error *why = NULL;
    size_t off = 0;
    CHECK_STATUS(contractpin_lock_parse(U8("{"), 1, &lock, &why, &off),
                 CONTRACTPIN_STATUS_LOCK_SYNTAX);
    CHECK(why != NULL && lock == NULL && off == 1);
    const uint8_t *p = NULL;
    size_t n = 99;
    CHECK_STATUS(contractpin_lock_error_path(why, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(p != NULL && n == 0);
    if (p != NULL) CHECK(lent_string_is(p, n, ""));
    p = NULL;
    n = 99;
    CHECK_STATUS(contractpin_lock_error_detail(why, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(p != NULL && n == 0);
    if (p != NULL) CHECK(lent_string_is(p, n, ""));
    contractpin_lock_error_free(why);

    /* An invalid lock: a path and a detail, each followed by a NUL. */
    why = NULL;
    CHECK_STATUS(contractpin_lock_parse(U8(invalid), strlen(invalid), &lock, &why, NULL),
                 CONTRACTPIN_STATUS_LOCK_INVALID);
    CHECK(why != NULL && lock == NULL);
    p = NULL;
    CHECK_STATUS(contractpin_lock_error_path(why, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(lent_string_is(p, n, "servers.demo.tool_count"));
    p = NULL;
    CHECK_STATUS(contractpin_lock_error_detail(why, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(p != NULL && n > 0 && strlen((const char *)p) == n);
    contractpin_lock_error_free(why);

    /* Server names, the empty one included. */
    CHECK_STATUS(contractpin_lock_parse(U8(text), lock_len, &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    p = NULL;
    CHECK_STATUS(contractpin_lock_server_name(lock, 0, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(lent_string_is(p, n, "demo"));
    contractpin_lock_free(lock);
    lock = NULL;
    CHECK_STATUS(contractpin_lock_parse(U8(unnamed), strlen(unnamed), &lock, NULL, NULL),
                 CONTRACTPIN_STATUS_OK);
    CHECK(contractpin_lock_server_count(lock) == 1);
    p = NULL;
    n = 99;
    CHECK_STATUS(contractpin_lock_server_name(lock, 0, &p, &n), CONTRACTPIN_STATUS_OK);
    CHECK(p != NULL && n == 0);
    if (p != NULL) CHECK(lent_string_is(p, n, ""));
    contractpin_lock_free(lock);

done:
    free(text);
    free(invalid);
    free(unnamed);
}

long run_abi_tests(const char *testdata_dir) {
    long n = 0;
    test_version_and_status_names(), n++;
    test_canonicalize(), n++;
    test_errors_and_offsets(), n++;
    test_null_and_zero_length(), n++;
    test_tool_digest(), n++;
    test_sha256(), n++;
    test_sha256_overwritten_state(), n++;
    test_limits(), n++;
    test_server_and_verify(testdata_dir), n++;
    test_verify_flags(testdata_dir), n++;
    test_lock_strings(testdata_dir), n++;
    return n;
}
