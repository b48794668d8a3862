/* A tiny test harness: CHECK records a failure and carries on. */
#ifndef CONTRACTPIN_TEST_HARNESS_H
#define CONTRACTPIN_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "contractpin.h"

extern long checks_run;
extern long checks_failed;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks_run++;                                                            \
        if (!(cond)) {                                                           \
            checks_failed++;                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_STATUS(got, want)                                                  \
    do {                                                                         \
        uint32_t got_ = (uint32_t)(got), want_ = (uint32_t)(want);               \
        checks_run++;                                                            \
        if (got_ != want_) {                                                     \
            checks_failed++;                                                     \
            fprintf(stderr, "%s:%d: status %s (%u), expected %s (%u)\n", __FILE__, \
                    __LINE__, contractpin_status_name(got_), got_,               \
                    contractpin_status_name(want_), want_);                      \
        }                                                                        \
    } while (0)

/* Reads a whole file into a malloc'ed buffer (NUL-terminated for
 * convenience); returns NULL on failure. */
uint8_t *read_file(const char *path, size_t *len);

/* The shipped example (examples/, found from TESTDATA_DIR as
 * ../../../examples): its lock, parsed, and its two pages. */
struct example {
    contractpin_lock *lock;
    uint8_t *lock_bytes, *clean, *drifted;
    size_t clean_len, drifted_len;
};

/* Loads the example; 0 on success, else it is reported as a failed check
 * and nothing is left to free. */
int load_example(const char *testdata_dir, struct example *ex);

/* Frees what load_example loaded. */
void free_example(struct example *ex);

/* Decodes lowercase or uppercase hex; returns 0 on success. The output
 * buffer is malloc'ed (at least one byte). */
int hex_decode(const char *hex, size_t hex_len, uint8_t **out, size_t *out_len);

/* Lowercase hex of bytes into out (2 * len + 1 bytes). */
void hex_encode(const uint8_t *bytes, size_t len, char *out);

/* The test suites; each returns the number of test cases it ran. */
long run_abi_tests(const char *testdata_dir);
long run_guard_tests(const char *testdata_dir);
long run_guard_instructions_tests(const char *testdata_dir);
long run_gate_tests(const char *testdata_dir);
long run_enforcer_tests(const char *testdata_dir);
long run_verify_server_tests(const char *testdata_dir);
long run_vector_tests(const char *vectors_path);

#endif
