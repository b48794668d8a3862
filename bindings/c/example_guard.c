/*
 * contractpin C example (docs/C_ABI.md, "Run-time guard" and "What the
 * embedding client keeps between pages"): what an MCP client does with each
 * tools/list page before its model sees it, and with each tools/call before
 * it sends it. The lock is parsed once; each page is decided exactly as
 * `contractpin proxy` decides it: drifted and unpinned tools are removed (or,
 * with --observe, kept and reported). The session keeps a contractpin_gate,
 * the proxy's per-session state: it is given each page's decision, and every
 * tools/call is checked with it first; a call for a tool that did not pass
 * on the current listing is refused, and so is every call after a refused
 * page. The gate's verdicts are the same in either mode; with --observe a
 * refused call is sent anyway and its refusal logged, as `contractpin proxy
 * --mode observe` does (call-unverified).
 *
 *   example_guard [--observe] LOCK SERVER PAGE [TOOL...]
 *
 * PAGE is the answer to the session's tools/list without a cursor. Prints
 * the page to hand on (stdout), one JSON line per tool that did not match
 * its pin (stderr, the proxy's log format), and for every TOOL (stdout)
 * "call TOOL: allowed", or "call TOOL: refused" followed by a line
 * "  REFUSAL: MESSAGE" (the refusal's stable word, as in the proxy's log,
 * and the sentence the proxy gives its client), or with --observe
 * "call TOOL: allowed (observe: REFUSAL)" (sent anyway). Exit 0 when the
 * page was decided, 1 when it was refused whole (not a valid tools/list
 * result), 2 on a usage or lock error.
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

/* Decides one page, prints it and its events, and gives the decision to the
 * session's gate. */
static int guard_page(const contractpin_lock *lock, contractpin_gate *gate, const char *server,
                      const uint8_t *page, size_t page_len, uint32_t flags) {
    contractpin_guard_result *res = NULL;
    size_t offset = 0;
    contractpin_status st = contractpin_guard_page(lock, (const uint8_t *)server, strlen(server),
                                                   page, page_len, flags, NULL, &res, &offset);
    if (st != CONTRACTPIN_STATUS_OK) {
        /* Fail closed: the page is not handed on, and nothing is callable. */
        (void)contractpin_gate_refused(gate, CONTRACTPIN_PAGE_FIRST);
        fprintf(stderr, "refusing page: %s at byte %zu\n", contractpin_status_name(st), offset);
        return st == CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER ? 2 : 1;
    }
    /* The answer to a tools/list without a cursor starts a new listing:
     * its passing tools become the callable ones, in either mode. */
    st = contractpin_gate_page(gate, res, CONTRACTPIN_PAGE_FIRST);
    if (st != CONTRACTPIN_STATUS_OK) {
        /* Fail closed: the gate now refuses; the page is not handed on. */
        contractpin_guard_result_free(res);
        fprintf(stderr, "refusing page: %s\n", contractpin_status_name(st));
        return 1;
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
    contractpin_guard_result_free(res); /* the gate keeps what it needs */
    return 0;
}

/* Before sending a tools/call: the gate's verdict, and the call is sent
 * only on CONTRACTPIN_REFUSAL_CALLABLE; in observe mode a refused call is
 * sent anyway and its refusal logged. tool is a command-line argument; a
 * name decoded from a request's JSON is checked with its decoded byte
 * length, never strlen (it may hold \u0000). */
static void call_tool(const contractpin_gate *gate, const char *tool, int observe) {
    contractpin_refusal why = contractpin_gate_check(gate, (const uint8_t *)tool, strlen(tool));
    if (why == CONTRACTPIN_REFUSAL_CALLABLE) {
        printf("call %s: allowed\n", tool); /* send it */
        return;
    }
    if (observe) { /* send it anyway, and log the refusal's word */
        printf("call %s: allowed (observe: %s)\n", tool, contractpin_refusal_name(why));
        return;
    }
    /* Refused: not sent (contractpin proxy answers the client with an error
     * whose data says "contractpin proxy: " and the message). */
    printf("call %s: refused\n  %s: %s\n", tool, contractpin_refusal_name(why),
           contractpin_refusal_message(why));
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
    /* One gate per session: nothing is callable before the first listing. */
    contractpin_gate *gate = NULL;
    st = contractpin_gate_new(&gate);
    if (st != CONTRACTPIN_STATUS_OK) {
        fprintf(stderr, "contractpin_gate_new: %s\n", contractpin_status_message(st));
        free(page);
        contractpin_lock_free(lock);
        return 2;
    }
    int code = guard_page(lock, gate, argv[2], page, page_len, flags);
    free(page);
    int observe = (flags & CONTRACTPIN_GUARD_OBSERVE) != 0;
    for (int i = 4; i < argc; i++) call_tool(gate, argv[i], observe);
    contractpin_gate_free(gate);
    contractpin_lock_free(lock);
    return code;
}
