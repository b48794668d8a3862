/* contractpin C test driver: ABI edge cases, the guard, the tool-call gate,
 * the message-level enforcer, the one-call verify of a server, then every
 * conformance vector.
 *
 *   test_static|test_dynamic VECTORS.tsv TESTDATA_DIR
 */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

long checks_run = 0;
long checks_failed = 0;

uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL) return NULL;
    for (;;) {
        if (*len + 1 >= cap) {
            uint8_t *bigger = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (bigger == NULL) { free(buf); fclose(f); return NULL; }
            buf = bigger;
        }
        size_t n = fread(buf + *len, 1, cap - *len - 1, f);
        if (n == 0) break;
        *len += n;
    }
    fclose(f);
    buf[*len] = 0;
    return buf;
}

int load_example(const char *dir, struct example *ex) {
    char path[4096];
    size_t lock_len;
    memset(ex, 0, sizeof *ex);
    snprintf(path, sizeof path, "%s/../../../examples/contractpin.lock", dir);
    ex->lock_bytes = read_file(path, &lock_len);
    snprintf(path, sizeof path, "%s/../../../examples/tools-list.json", dir);
    ex->clean = read_file(path, &ex->clean_len);
    snprintf(path, sizeof path, "%s/../../../examples/drifted-tools-list.json", dir);
    ex->drifted = read_file(path, &ex->drifted_len);
    CHECK(ex->lock_bytes && ex->clean && ex->drifted);
    if (ex->lock_bytes && ex->clean && ex->drifted) {
        CHECK_STATUS(contractpin_lock_parse(ex->lock_bytes, lock_len, &ex->lock, NULL, NULL),
                     CONTRACTPIN_STATUS_OK);
    } else {
        fprintf(stderr, "examples/ not found from %s/../../..\n", dir);
    }
    if (ex->lock != NULL) return 0;
    free_example(ex);
    return -1;
}

void free_example(struct example *ex) {
    contractpin_lock_free(ex->lock);
    free(ex->lock_bytes);
    free(ex->clean);
    free(ex->drifted);
    memset(ex, 0, sizeof *ex);
}

static int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int hex_decode(const char *hex, size_t hex_len, uint8_t **out, size_t *out_len) {
    if (hex_len % 2 != 0) return -1;
    uint8_t *buf = malloc(hex_len / 2 + 1);
    if (buf == NULL) return -1;
    for (size_t i = 0; i < hex_len / 2; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) { free(buf); return -1; }
        buf[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = buf;
    *out_len = hex_len / 2;
    return 0;
}

void hex_encode(const uint8_t *bytes, size_t len, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s VECTORS.tsv TESTDATA_DIR\n", argv[0]);
        return 2;
    }
    if (strcmp(contractpin_version(), CONTRACTPIN_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s does not match header %s\n", contractpin_version(),
                CONTRACTPIN_VERSION_STRING);
        return 1;
    }
    long abi = run_abi_tests(argv[2]);
    long guard = run_guard_tests(argv[2]);
    long instructions = run_guard_instructions_tests(argv[2]);
    long gate = run_gate_tests(argv[2]);
    long enforcer = run_enforcer_tests(argv[2]);
    long verify_server = run_verify_server_tests(argv[2]);
    long vectors = run_vector_tests(argv[1]);
    printf("C %s: %ld ABI tests, %ld guard tests, %ld instructions guard tests, "
           "%ld gate tests, %ld enforcer tests, %ld verify-server tests, %ld vectors, %ld checks, "
           "%ld failed\n",
           argv[0], abi, guard, instructions, gate, enforcer, verify_server, vectors, checks_run,
           checks_failed);
    return checks_failed == 0 && vectors > 0 && guard == 4 && instructions == 4 && gate == 4 &&
                   enforcer == 3 && verify_server == 4
               ? 0
               : 1;
}
