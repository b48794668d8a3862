/* Every conformance vector of vectors/vectors.tsv through the C ABI.
 *
 * vectors/README.md: a '#' header line, then one vector per line with six
 * tab-separated columns:
 *   name  mode  input_hex ("-" = empty)  expected (canonical_hex | !error-kind)
 *   digest ("-" = none)  extra
 * extra is, in tool mode, "field=sha256:..." pairs joined by ';'; in
 * tools-list mode one entry per tool joined by ';', each
 * "hex(name)=sha256:..." followed by ",field=sha256:..." pairs; else "-".
 * Modes: value (canonicalize), tool (project onto the contract, then
 * canonicalize), tools-list (server digest; the canonical bytes are those of
 * the {name: tool_digest} object). */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

typedef struct {
    const char *p;
    size_t n;
} span;

static int span_eq(span s, const char *lit) {
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* Splits s at `sep` into up to max spans; returns the number of spans. */
static size_t split(span s, char sep, span *out, size_t max) {
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= s.n; i++) {
        if (i == s.n || s.p[i] == sep) {
            if (n == max) return max + 1;
            out[n].p = s.p + start;
            out[n].n = i - start;
            n++;
            start = i + 1;
        }
    }
    return n;
}

/* Splits "key=value". */
static int key_value(span s, span *key, span *value) {
    for (size_t i = 0; i < s.n; i++) {
        if (s.p[i] == '=') {
            key->p = s.p;
            key->n = i;
            value->p = s.p + i + 1;
            value->n = s.n - i - 1;
            return 0;
        }
    }
    return -1;
}

static const char *g_name; /* vector being run, for messages */
static int g_name_len;

static int fail(const char *what) {
    fprintf(stderr, "vector %.*s: %s\n", g_name_len, g_name, what);
    return 0;
}

static int digest_matches(const uint8_t raw[32], span want) {
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    (void)contractpin_digest_to_text(raw, text);
    if (want.n == CONTRACTPIN_DIGEST_TEXT_LEN && memcmp(want.p, text, want.n) == 0) return 1;
    fprintf(stderr, "vector %.*s: digest %s, expected %.*s\n", g_name_len, g_name, text,
            (int)want.n, want.p);
    return 0;
}

static uint32_t field_id(span name) {
    for (uint32_t f = 0; f < CONTRACTPIN_FIELD_COUNT; f++) {
        if (span_eq(name, contractpin_field_name(f))) return f;
    }
    return CONTRACTPIN_FIELD_COUNT;
}

/* Checks "field=digest" pairs (pairs[0..n]) against tool `index` of server. */
static int check_fields(const contractpin_server *server, size_t index, const span *pairs, size_t n) {
    int ok = 1;
    uint32_t mask = 0, seen = 0;
    uint8_t raw[32];
    if (contractpin_server_tool_fields(server, index, &mask) != CONTRACTPIN_STATUS_OK)
        return fail("tool fields failed");
    for (size_t i = 0; i < n; i++) {
        span key, value;
        if (key_value(pairs[i], &key, &value) != 0) return fail("bad field pair");
        uint32_t f = field_id(key);
        if (f == CONTRACTPIN_FIELD_COUNT) return fail("unknown field name in the vector");
        seen |= 1u << f;
        if (contractpin_server_tool_field_digest(server, index, f, raw) != CONTRACTPIN_STATUS_OK) {
            ok = fail("a field digest is missing");
            continue;
        }
        ok &= digest_matches(raw, value);
    }
    if (seen != mask) ok = fail("the set of contract fields differs");
    return ok;
}

/* value and tool modes: canonical bytes through a size query and an
 * exact-size buffer. */
static uint32_t canonical(int tool, const uint8_t *in, size_t len, uint8_t **out, size_t *out_len,
                          size_t *off) {
    uint32_t st = tool ? contractpin_tool_contract(in, len, NULL, 0, out_len, off)
                       : contractpin_canonicalize(in, len, NULL, 0, out_len, off);
    if (st != CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL) return st; /* canonical JSON is never empty */
    size_t cap = *out_len;
    *out = malloc(cap);
    st = tool ? contractpin_tool_contract(in, len, *out, cap, out_len, off)
              : contractpin_canonicalize(in, len, *out, cap, out_len, off);
    if (st == CONTRACTPIN_STATUS_OK && *out_len != cap) {
        fail("length differs between the size query and the output");
        return CONTRACTPIN_STATUS_PANIC;
    }
    return st;
}

static int check_error(uint32_t st, size_t off, size_t input_len, span expected) {
    if (st == CONTRACTPIN_STATUS_OK) return fail("accepted, expected an error");
    const char *got = contractpin_status_name(st);
    if (!(strlen(got) == expected.n - 1 && memcmp(got, expected.p + 1, expected.n - 1) == 0)) {
        fprintf(stderr, "vector %.*s: error %s at byte %zu, expected %.*s\n", g_name_len, g_name,
                got, off, (int)expected.n - 1, expected.p + 1);
        return 0;
    }
    if (off > input_len) return fail("error offset beyond the input");
    return 1;
}

static int run_value_or_tool(int tool, const uint8_t *in, size_t len, span expected, span digest,
                             span extra) {
    uint8_t *out = NULL, raw[32];
    size_t out_len = 0, off = (size_t)-1;
    int ok = 1;
    uint32_t st = canonical(tool, in, len, &out, &out_len, &off);
    if (expected.n > 0 && expected.p[0] == '!') {
        ok = check_error(st, off, len, expected);
        if (tool) { /* the digest entry point agrees */
            size_t off2 = (size_t)-1;
            uint32_t st2 = contractpin_tool_digest_bytes(in, len, raw, &off2);
            if (st2 != st || off2 != off) ok = fail("tool digest and contract disagree on the error");
        }
        free(out);
        return ok;
    }
    if (st != CONTRACTPIN_STATUS_OK) {
        fprintf(stderr, "vector %.*s: rejected with %s at byte %zu\n", g_name_len, g_name,
                contractpin_status_name(st), off);
        free(out);
        return 0;
    }
    uint8_t *want = NULL;
    size_t want_len = 0;
    if (hex_decode(expected.p, expected.n, &want, &want_len) != 0) ok = fail("bad expected hex");
    else if (want_len != out_len || memcmp(want, out, out_len) != 0) ok = fail("canonical bytes differ");
    free(want);
    if (tool) {
        if (contractpin_tool_digest_bytes(in, len, raw, NULL) != CONTRACTPIN_STATUS_OK)
            ok = fail("tool digest failed");
        else if (!span_eq(digest, "-")) ok &= digest_matches(raw, digest);
        /* Field digests: the tool as a one-element tools list. */
        uint8_t *wrapped = malloc(len + 2);
        wrapped[0] = '[';
        memcpy(wrapped + 1, in, len);
        wrapped[len + 1] = ']';
        contractpin_server *server = NULL;
        if (contractpin_digest_tools_list(wrapped, len + 2, &server, NULL) != CONTRACTPIN_STATUS_OK ||
            contractpin_server_tool_count(server) != 1) {
            ok = fail("the tool as a one-element tools list failed");
        } else if (!span_eq(extra, "-")) {
            span pairs[CONTRACTPIN_FIELD_COUNT + 1];
            size_t n = split(extra, ';', pairs, CONTRACTPIN_FIELD_COUNT);
            if (n > CONTRACTPIN_FIELD_COUNT) ok = fail("too many fields");
            else ok &= check_fields(server, 0, pairs, n);
            if (contractpin_server_tool_digest(server, 0, raw) == CONTRACTPIN_STATUS_OK &&
                !span_eq(digest, "-"))
                ok &= digest_matches(raw, digest);
        }
        contractpin_server_free(server);
        free(wrapped);
    } else if (!span_eq(digest, "-")) {
        (void)contractpin_sha256_digest(out, out_len, raw);
        ok &= digest_matches(raw, digest);
    }
    free(out);
    return ok;
}

static int run_tools_list(const uint8_t *in, size_t len, span expected, span digest, span extra) {
    contractpin_server *server = NULL;
    size_t off = (size_t)-1;
    uint8_t raw[32];
    int ok = 1;
    uint32_t st = contractpin_digest_tools_list(in, len, &server, &off);
    if (expected.n > 0 && expected.p[0] == '!') {
        ok = check_error(st, off, len, expected);
        if (server != NULL) ok = fail("out written on failure");
        return ok;
    }
    if (st != CONTRACTPIN_STATUS_OK) {
        fprintf(stderr, "vector %.*s: rejected with %s at byte %zu\n", g_name_len, g_name,
                contractpin_status_name(st), off);
        return 0;
    }
    /* The server digest hashes the expected canonical {name: digest} object. */
    uint8_t *want = NULL;
    size_t want_len = 0;
    if (hex_decode(expected.p, expected.n, &want, &want_len) != 0) {
        ok = fail("bad expected hex");
    } else {
        (void)contractpin_sha256_digest(want, want_len, raw);
        ok &= digest_matches(raw, digest);
    }
    free(want);
    (void)contractpin_server_digest(server, raw);
    ok &= digest_matches(raw, digest);

    size_t count = contractpin_server_tool_count(server);
    size_t entries = 0;
    if (!span_eq(extra, "-")) {
        span tools[4096];
        entries = split(extra, ';', tools, 4096);
        if (entries > 4096) entries = 0, ok = fail("too many tools for this harness");
        for (size_t i = 0; i < entries && i < count; i++) {
            span parts[CONTRACTPIN_FIELD_COUNT + 2];
            size_t n = split(tools[i], ',', parts, CONTRACTPIN_FIELD_COUNT + 1);
            span hex_name, tool_digest;
            if (n > CONTRACTPIN_FIELD_COUNT + 1 || key_value(parts[0], &hex_name, &tool_digest) != 0) {
                ok = fail("bad tool entry");
                continue;
            }
            uint8_t *name = NULL;
            size_t name_len = 0;
            const uint8_t *got_name = NULL;
            size_t got_len = 0;
            (void)contractpin_server_tool_name(server, i, &got_name, &got_len);
            if (hex_decode(hex_name.p, hex_name.n, &name, &name_len) != 0) ok = fail("bad name hex");
            else if (name_len != got_len || memcmp(name, got_name, got_len) != 0)
                ok = fail("tool name or order differs");
            free(name);
            (void)contractpin_server_tool_digest(server, i, raw);
            ok &= digest_matches(raw, tool_digest);
            ok &= check_fields(server, i, parts + 1, n - 1);
        }
    }
    if (entries != count) ok = fail("tool count differs");
    contractpin_server_free(server);
    return ok;
}

static int run_vector(span *c) {
    g_name = c[0].p;
    g_name_len = (int)c[0].n;
    uint8_t *input = NULL;
    size_t input_len = 0;
    if (span_eq(c[2], "-")) {
        input = malloc(1);
    } else if (hex_decode(c[2].p, c[2].n, &input, &input_len) != 0) {
        return fail("bad input hex");
    }
    int ok;
    if (span_eq(c[1], "value")) ok = run_value_or_tool(0, input, input_len, c[3], c[4], c[5]);
    else if (span_eq(c[1], "tool")) ok = run_value_or_tool(1, input, input_len, c[3], c[4], c[5]);
    /* instructions (SPEC.md section 13): the digest is SHA-256 of the
     * canonical JSON string, so canonicalize + SHA-256 checks it. */
    else if (span_eq(c[1], "instructions")) ok = run_value_or_tool(0, input, input_len, c[3], c[4], c[5]);
    else if (span_eq(c[1], "tools-list")) ok = run_tools_list(input, input_len, c[3], c[4], c[5]);
    else ok = fail("unknown mode");
    free(input);
    return ok;
}

long run_vector_tests(const char *path) {
    size_t len = 0;
    char *data = (char *)read_file(path, &len);
    if (data == NULL) {
        fprintf(stderr, "cannot read %s\n", path);
        checks_run++;
        checks_failed++;
        return 0;
    }
    long count = 0;
    size_t line_no = 0;
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && data[end] != '\n') end++;
        span line = {data + at, end - at};
        if (line.n > 0 && line.p[line.n - 1] == '\r') line.n--;
        line_no++;
        at = end + 1;
        if (line.n == 0 || line.p[0] == '#') continue;
        span cols[6];
        size_t n = split(line, '\t', cols, 6);
        checks_run++;
        if (n != 6) {
            fprintf(stderr, "%s:%zu: expected 6 columns, found %zu\n", path, line_no, n);
            checks_failed++;
            continue;
        }
        count++;
        if (!run_vector(cols)) checks_failed++;
    }
    free(data);
    return count;
}
