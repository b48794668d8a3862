/* Every conformance vector of vectors/vectors.tsv through the C ABI.
 *
 * The TSV (written from vectors.json by the conformance tooling) has one
 * vector per line with five tab-separated columns:
 *   name  mode  input_hex  expected  digest
 * where expected is the canonical output in hex, or "!" followed by the
 * stable error kind; digest is "sha256:<hex>" or "-". Lines starting with
 * '#' and a header line starting with "name\t" are skipped. */
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

/* Splits `line` (without its newline) at tabs into up to `max` spans. */
static size_t split(const char *line, size_t len, span *cols, size_t max) {
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len && n < max; i++) {
        if (i == len || line[i] == '\t') {
            cols[n].p = line + start;
            cols[n].n = i - start;
            n++;
            start = i + 1;
        }
    }
    return n;
}

/* What a mode asks of the library. */
enum op { OP_CANONICAL, OP_CONTRACT, OP_TOOLS_LIST, OP_UNKNOWN };

static enum op mode_op(span mode) {
    if (span_eq(mode, "canonical") || span_eq(mode, "canon") || span_eq(mode, "raw") ||
        span_eq(mode, "document"))
        return OP_CANONICAL;
    if (span_eq(mode, "contract") || span_eq(mode, "project") || span_eq(mode, "tool"))
        return OP_CONTRACT;
    if (span_eq(mode, "tools_list") || span_eq(mode, "tools-list") || span_eq(mode, "server"))
        return OP_TOOLS_LIST;
    return OP_UNKNOWN;
}

static void report(span name, const char *what) {
    fprintf(stderr, "vector %.*s: %s\n", (int)name.n, name.p, what);
}

/* Runs one vector; returns 1 if it passed. */
static int run_vector(span name, span mode, span input_hex, span expected, span digest) {
    uint8_t *input = NULL;
    size_t input_len = 0;
    int ok = 1;
    enum op op = mode_op(mode);
    if (op == OP_UNKNOWN) {
        report(name, "unknown mode");
        return 0;
    }
    if (hex_decode(input_hex.p, input_hex.n, &input, &input_len) != 0) {
        report(name, "bad input hex");
        return 0;
    }
    int want_error = expected.n > 0 && expected.p[0] == '!';
    uint32_t st;
    size_t off = (size_t)-1, out_len = 0;
    uint8_t *out = NULL;
    uint8_t raw[CONTRACTPIN_DIGEST_SIZE];
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    int have_digest = 0;

    if (op == OP_TOOLS_LIST) {
        contractpin_server *server = NULL;
        st = contractpin_digest_tools_list(input, input_len, &server, &off);
        if (st == CONTRACTPIN_STATUS_OK) {
            (void)contractpin_server_digest(server, raw);
            have_digest = 1;
            contractpin_server_free(server);
        }
    } else {
        /* Size query first, then the exact size: exercises both paths. */
        st = op == OP_CANONICAL
                 ? contractpin_canonicalize(input, input_len, NULL, 0, &out_len, &off)
                 : contractpin_tool_contract(input, input_len, NULL, 0, &out_len, &off);
        if (st == CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL || (st == CONTRACTPIN_STATUS_OK && out_len == 0)) {
            size_t cap = out_len;
            out = malloc(cap ? cap : 1);
            st = op == OP_CANONICAL
                     ? contractpin_canonicalize(input, input_len, out, cap, &out_len, &off)
                     : contractpin_tool_contract(input, input_len, out, cap, &out_len, &off);
            if (st == CONTRACTPIN_STATUS_OK && out_len != cap) {
                report(name, "length differs between size query and output");
                ok = 0;
            }
        }
        if (st == CONTRACTPIN_STATUS_OK) {
            if (op == OP_CONTRACT) {
                uint32_t st2 = contractpin_tool_digest_bytes(input, input_len, raw, NULL);
                if (st2 != CONTRACTPIN_STATUS_OK) {
                    report(name, "tool digest failed where the contract succeeded");
                    ok = 0;
                }
            } else {
                (void)contractpin_sha256_digest(out, out_len, raw);
            }
            have_digest = 1;
        }
    }

    if (want_error) {
        if (st == CONTRACTPIN_STATUS_OK) {
            report(name, "accepted, expected an error");
            ok = 0;
        } else {
            const char *got = contractpin_status_name(st);
            if (!(strlen(got) == expected.n - 1 && memcmp(got, expected.p + 1, expected.n - 1) == 0)) {
                fprintf(stderr, "vector %.*s: error %s, expected %.*s\n", (int)name.n, name.p, got,
                        (int)expected.n - 1, expected.p + 1);
                ok = 0;
            }
            if (st < 64 && off > input_len) {
                report(name, "error offset beyond the input");
                ok = 0;
            }
        }
    } else if (st != CONTRACTPIN_STATUS_OK) {
        fprintf(stderr, "vector %.*s: rejected with %s at byte %zu\n", (int)name.n, name.p,
                contractpin_status_name(st), off);
        ok = 0;
    } else {
        if (op != OP_TOOLS_LIST && !span_eq(expected, "-")) {
            uint8_t *want = NULL;
            size_t want_len = 0;
            if (hex_decode(expected.p, expected.n, &want, &want_len) != 0) {
                report(name, "bad expected hex");
                ok = 0;
            } else if (want_len != out_len || memcmp(want, out, out_len) != 0) {
                report(name, "canonical bytes differ");
                ok = 0;
            }
            free(want);
        }
        if (have_digest && !span_eq(digest, "-")) {
            (void)contractpin_digest_to_text(raw, text);
            if (!(digest.n == CONTRACTPIN_DIGEST_TEXT_LEN && memcmp(digest.p, text, digest.n) == 0)) {
                fprintf(stderr, "vector %.*s: digest %s, expected %.*s\n", (int)name.n, name.p,
                        text, (int)digest.n, digest.p);
                ok = 0;
            }
        }
    }
    free(out);
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
        const char *line = data + at;
        size_t line_len = end - at;
        if (line_len > 0 && line[line_len - 1] == '\r') line_len--;
        line_no++;
        at = end + 1;
        if (line_len == 0 || line[0] == '#' || (line_len >= 5 && memcmp(line, "name\t", 5) == 0))
            continue;
        span cols[6];
        size_t n = split(line, line_len, cols, 6);
        checks_run++;
        if (n != 5) {
            fprintf(stderr, "%s:%zu: expected 5 columns, found %zu\n", path, line_no, n);
            checks_failed++;
            continue;
        }
        count++;
        if (!run_vector(cols[0], cols[1], cols[2], cols[3], cols[4])) checks_failed++;
    }
    free(data);
    return count;
}
