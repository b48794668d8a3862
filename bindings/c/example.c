/*
 * contractpin C example (docs/C_ABI.md): digest a tools/list, and enforce a
 * lock at run time.
 *
 *   example TOOLS_LIST.json                  print the server and tool digests
 *   example TOOLS_LIST.json LOCK SERVER      verify against the lock; exit 0/1/2
 *
 * Build: cc -std=c99 example.c $(pkg-config --cflags --libs contractpin)
 */
#include <stdio.h>
#include <stdlib.h>

#include "contractpin.h"

/* Reads a whole file; returns NULL on failure. */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL) return NULL;
    for (;;) {
        if (*len == cap) {
            uint8_t *bigger = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (bigger == NULL) { free(buf); fclose(f); return NULL; }
            buf = bigger;
        }
        size_t n = fread(buf + *len, 1, cap - *len, f);
        if (n == 0) break;
        *len += n;
    }
    fclose(f);
    return buf;
}

static int fail(const char *what, contractpin_status st, size_t offset) {
    fprintf(stderr, "%s: %s at byte %zu: %s\n", what, contractpin_status_name(st), offset,
            contractpin_status_message(st));
    return 2;
}

static int digest(const uint8_t *list, size_t list_len) {
    contractpin_server *server = NULL;
    size_t offset = 0;
    contractpin_status st = contractpin_digest_tools_list(list, list_len, &server, &offset);
    if (st != CONTRACTPIN_STATUS_OK) return fail("tools/list", st, offset);

    uint8_t raw[CONTRACTPIN_DIGEST_SIZE];
    char text[CONTRACTPIN_DIGEST_TEXT_SIZE];
    (void)contractpin_server_digest(server, raw);
    (void)contractpin_digest_to_text(raw, text);
    printf("server %s\n", text);
    for (size_t i = 0; i < contractpin_server_tool_count(server); i++) {
        const uint8_t *name;
        size_t name_len;
        (void)contractpin_server_tool_name(server, i, &name, &name_len);
        (void)contractpin_server_tool_digest(server, i, raw);
        (void)contractpin_digest_to_text(raw, text);
        printf("tool %.*s %s\n", (int)name_len, (const char *)name, text);
    }
    contractpin_server_free(server);
    return 0;
}

static int verify(const uint8_t *list, size_t list_len, const uint8_t *lock, size_t lock_len,
                  const char *server_name, size_t server_name_len) {
    static const char *const status_names[] = {"unchanged", "drifted", "added", "removed"};
    contractpin_report *report = NULL;
    size_t offset = 0;
    contractpin_status st = contractpin_verify(lock, lock_len, (const uint8_t *)server_name,
                                               server_name_len, list, list_len, 0, &report, &offset);
    if (st != CONTRACTPIN_STATUS_OK) {
        /* Fail closed: a lock error is exit 2, a bad tools/list is exit 1. */
        fail("verify", st, offset);
        return st >= 64 ? 2 : 1;
    }
    for (size_t i = 0; i < contractpin_report_tool_count(report); i++) {
        const uint8_t *name;
        size_t name_len;
        uint32_t status, changed;
        (void)contractpin_report_tool(report, i, &name, &name_len, &status, &changed);
        printf("%-9s %.*s", status_names[status], (int)name_len, (const char *)name);
        for (uint32_t f = 0; f < CONTRACTPIN_FIELD_COUNT; f++) {
            if (changed & (1u << f)) printf(" %s", contractpin_field_name(f));
        }
        printf("\n");
    }
    int code = contractpin_report_exit_code(report);
    printf("exit %d\n", code);
    contractpin_report_free(report);
    return code;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 4) {
        fprintf(stderr, "usage: %s TOOLS_LIST [LOCK SERVER]\n", argv[0]);
        return 2;
    }
    size_t list_len, lock_len;
    uint8_t *list = read_file(argv[1], &list_len);
    if (list == NULL) { perror(argv[1]); return 2; }
    int code;
    if (argc == 2) {
        code = digest(list, list_len);
    } else {
        uint8_t *lock = read_file(argv[2], &lock_len);
        if (lock == NULL) { perror(argv[2]); free(list); return 2; }
        size_t name_len = 0;
        while (argv[3][name_len] != '\0') name_len++;
        code = verify(list, list_len, lock, lock_len, argv[3], name_len);
        free(lock);
    }
    free(list);
    return code;
}
