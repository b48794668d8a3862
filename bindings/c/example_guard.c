/*
 * contractpin C example (docs/C_ABI.md, "Run-time guard"): what an MCP client
 * does with each tools/list page before its model sees it. The lock is
 * parsed once; each page is decided exactly as `contractpin proxy` decides
 * it: drifted and unpinned tools are removed (or, with --observe, kept and
 * reported), and a tools/call for a tool that did not pass is refused.
 *
 *   example_guard [--observe] LOCK SERVER PAGE [TOOL...]
 *
 * Prints the page to hand on (stdout), one JSON line per tool that did not
 * match its pin (stderr, the proxy's log format), and "call TOOL: allowed"
 * or "call TOOL: refused" for every TOOL (stdout). Exit 0 when the page was
 * decided, 1 when it was refused whole (not a valid tools/list result), 2
 * on a usage or lock error.
 *
 * Build: cc -std=c99 example_guard.c $(pkg-config --cflags --libs contractpin)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Decides one page; prints it, its events and the calls. */
static int guard_page(const contractpin_lock *lock, const char *server, const uint8_t *page,
                      size_t page_len, uint32_t flags, char **tools, int tool_count) {
    contractpin_guard_result *res = NULL;
    size_t offset = 0;
    contractpin_status st = contractpin_guard_page(lock, (const uint8_t *)server, strlen(server),
                                                   page, page_len, flags, NULL, &res, &offset);
    if (st != CONTRACTPIN_STATUS_OK) {
        /* Fail closed: the page is not handed on. */
        fprintf(stderr, "refusing page: %s at byte %zu\n", contractpin_status_name(st), offset);
        return st == CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER ? 2 : 1;
    }
    for (size_t i = 0; i < contractpin_guard_result_event_count(res); i++) {
        const uint8_t *line;
        size_t line_len;
        (void)contractpin_guard_result_event_json(res, i, &line, &line_len);
        fprintf(stderr, "%.*s\n", (int)line_len, (const char *)line);
    }
    const uint8_t *result;
    size_t result_len;
    (void)contractpin_guard_result_bytes(res, &result, &result_len);
    fwrite(result, 1, result_len, stdout); /* what the model sees */
    printf("\n");
    for (int i = 0; i < tool_count; i++) {
        int ok = contractpin_guard_result_callable(res, (const uint8_t *)tools[i], strlen(tools[i]));
        printf("call %s: %s\n", tools[i], ok == 1 ? "allowed" : "refused");
    }
    contractpin_guard_result_free(res);
    return 0;
}

int main(int argc, char **argv) {
    uint32_t flags = 0;
    if (argc > 1 && strcmp(argv[1], "--observe") == 0) {
        flags = CONTRACTPIN_GUARD_OBSERVE;
        argc--, argv++;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: example_guard [--observe] LOCK SERVER PAGE [TOOL...]\n");
        return 2;
    }
    size_t lock_len, page_len;
    uint8_t *lock_bytes = read_file(argv[1], &lock_len);
    if (lock_bytes == NULL) { perror(argv[1]); return 2; }
    contractpin_lock *lock = NULL;
    size_t offset = 0;
    contractpin_status st = contractpin_lock_parse(lock_bytes, lock_len, &lock, NULL, &offset);
    free(lock_bytes);
    if (st != CONTRACTPIN_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], contractpin_status_message(st));
        return 2;
    }
    uint8_t *page = read_file(argv[3], &page_len);
    if (page == NULL) { perror(argv[3]); contractpin_lock_free(lock); return 2; }
    int code = guard_page(lock, argv[2], page, page_len, flags, argv + 4, argc - 4);
    free(page);
    contractpin_lock_free(lock);
    return code;
}
