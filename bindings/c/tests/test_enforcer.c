/* The message-level check (contractpin_enforcer_*, contractpin_decision_*):
 * one session of the shipped example decided from C as an embedding
 * client's transport would decide it, and the argument errors. The C twin
 * of tests/ffi_enforcer.rs.
 *
 * The pages are the shipped example's (examples/, found from TESTDATA_DIR
 * as ../../../examples). The expected decisions do not come from the code
 * under test: they follow from what README.md documents for that example
 * (against contractpin.lock, server `example`, tools-list.json passes
 * whole; in drifted-tools-list.json search_web and read_file drifted,
 * export_data added, translate unchanged, delete_record absent), from the
 * error MCP specifies for an unknown tool (-32602) and from the event log
 * format `contractpin proxy --help` documents. */
#include <stdlib.h>
#include <string.h>

#include "contractpin.h"
#include "harness.h"

#define U8(s) ((const uint8_t *)(s))

/* One message decided: its action, the replacement and reply (NUL-ended,
 * owned by the decision), the event count; the decision is kept in d. */
struct decided {
    contractpin_decision *d;
    contractpin_action action;
    const char *bytes, *reply;
    size_t events;
};

typedef contractpin_status (*decide_fn)(contractpin_enforcer *, const uint8_t *, size_t,
                                        contractpin_decision **);

/* What decision d says (d kept in the result). */
static struct decided read_decision(contractpin_decision *d) {
    struct decided r = {d, contractpin_decision_action(d), NULL, NULL, 0};
    const uint8_t *p;
    size_t n;
    if (contractpin_decision_bytes(d, &p, &n) == CONTRACTPIN_STATUS_OK) r.bytes = (const char *)p;
    if (contractpin_decision_reply(d, &p, &n) == CONTRACTPIN_STATUS_OK) r.reply = (const char *)p;
    r.events = contractpin_decision_event_count(d);
    return r;
}

static struct decided decide(contractpin_enforcer *e, decide_fn f, const uint8_t *msg,
                             size_t len) {
    contractpin_decision *d = NULL;
    CHECK_STATUS(f(e, msg, len, &d), CONTRACTPIN_STATUS_OK);
    return read_decision(d);
}

static struct decided client(contractpin_enforcer *e, const char *msg) {
    return decide(e, contractpin_enforcer_client, U8(msg), strlen(msg));
}

static struct decided server(contractpin_enforcer *e, const char *msg) {
    return decide(e, contractpin_enforcer_server, U8(msg), strlen(msg));
}

/* Event i of d is exactly want. */
static int event_is(const struct decided *r, size_t i, const char *want) {
    const uint8_t *p;
    size_t n;
    if (contractpin_decision_event_json(r->d, i, &p, &n) != CONTRACTPIN_STATUS_OK) return 0;
    return n == strlen(want) && memcmp(p, want, n) == 0;
}

/* The answer to {"jsonrpc":"2.0","id":ID,"result":PAGE}. */
static struct decided answer(contractpin_enforcer *e, int id, const uint8_t *page, size_t len) {
    char head[64];
    int h = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":", id);
    uint8_t *msg = malloc((size_t)h + len + 1);
    struct decided r = {NULL, CONTRACTPIN_ACTION_DROP, NULL, NULL, 0};
    CHECK(msg != NULL);
    if (msg == NULL) return r;
    memcpy(msg, head, (size_t)h);
    memcpy(msg + h, page, len);
    msg[(size_t)h + len] = '}';
    r = decide(e, contractpin_enforcer_server, msg, (size_t)h + len + 1);
    free(msg); /* the decision does not borrow the message */
    return r;
}

#define CALL(id, name)                                                                    \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" \
    name "\",\"arguments\":{}}}"

static void test_session(const contractpin_lock *lock, const uint8_t *clean, size_t clean_len,
                         const uint8_t *drifted, size_t drifted_len) {
    contractpin_enforcer *e = NULL;
    CHECK_STATUS(contractpin_enforcer_new(lock, U8("example"), 7, 0, NULL, &e),
                 CONTRACTPIN_STATUS_OK);
    /* Before any listing: refused, answered with MCP's error, one event. */
    struct decided r = client(e, CALL(1, "translate"));
    CHECK(r.action == CONTRACTPIN_ACTION_DROP && r.reply != NULL);
    CHECK(r.reply && strstr(r.reply, "\"id\":1,\"error\":{\"code\":-32602,"
                                     "\"message\":\"Unknown tool: translate\"") != NULL);
    CHECK(r.events == 1 && event_is(&r, 0, "{\"reason\":\"no-listing\",\"server\":\"example\","
                                           "\"status\":\"call-refused\",\"tool\":\"translate\"}"));
    contractpin_decision_free(r.d);

    /* The drifted listing: only translate reaches the client. */
    r = client(e, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    CHECK(r.action == CONTRACTPIN_ACTION_FORWARD && r.bytes == NULL && r.events == 0);
    contractpin_decision_free(r.d);
    r = answer(e, 2, drifted, drifted_len);
    CHECK(r.action == CONTRACTPIN_ACTION_REPLACE && r.bytes != NULL && r.events == 3);
    CHECK(r.bytes && strstr(r.bytes, "\"name\": \"translate\"") != NULL);
    CHECK(r.bytes && strstr(r.bytes, "\"name\": \"search_web\"") == NULL);
    CHECK(r.bytes && strstr(r.bytes, "\"name\": \"export_data\"") == NULL);
    contractpin_decision_free(r.d);
    r = client(e, CALL(3, "translate"));
    CHECK(r.action == CONTRACTPIN_ACTION_FORWARD && r.reply == NULL);
    contractpin_decision_free(r.d);
    r = client(e, CALL(4, "search_web"));
    CHECK(r.action == CONTRACTPIN_ACTION_DROP);
    CHECK(event_is(&r, 0, "{\"reason\":\"drifted\",\"server\":\"example\","
                          "\"status\":\"call-refused\",\"tool\":\"search_web\"}"));
    contractpin_decision_free(r.d);

    /* list_changed: nothing callable until the clean listing, which passes
     * byte for byte. */
    r = server(e, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    CHECK(r.action == CONTRACTPIN_ACTION_FORWARD);
    contractpin_decision_free(r.d);
    r = client(e, CALL(5, "translate"));
    CHECK(r.action == CONTRACTPIN_ACTION_DROP && event_is(&r, 0,
          "{\"reason\":\"list-changed\",\"server\":\"example\",\"status\":\"call-refused\","
          "\"tool\":\"translate\"}"));
    contractpin_decision_free(r.d);
    r = client(e, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}");
    contractpin_decision_free(r.d);
    r = answer(e, 6, clean, clean_len);
    CHECK(r.action == CONTRACTPIN_ACTION_FORWARD && r.events == 0);
    contractpin_decision_free(r.d);
    r = client(e, CALL(7, "delete_record"));
    CHECK(r.action == CONTRACTPIN_ACTION_FORWARD);
    contractpin_decision_free(r.d);

    /* Stray output from the server never reaches the client. */
    r = server(e, "hello");
    CHECK(r.action == CONTRACTPIN_ACTION_DROP && r.events == 1);
    contractpin_decision_free(r.d);
    contractpin_enforcer_free(e);
}

static void test_argument_errors(const contractpin_lock *lock) {
    contractpin_enforcer *e = NULL;
    CHECK_STATUS(contractpin_enforcer_new(lock, U8("nope"), 4, 0, NULL, &e),
                 CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER);
    CHECK_STATUS(contractpin_enforcer_new(lock, U8("example"), 7,
                                          CONTRACTPIN_GUARD_OBSERVE | CONTRACTPIN_ENFORCER_BLOCK,
                                          NULL, &e),
                 CONTRACTPIN_STATUS_INVALID_ARGUMENT);
    CHECK(e == NULL);
    contractpin_decision *d = NULL;
    CHECK_STATUS(contractpin_enforcer_client(NULL, U8("{}"), 2, &d),
                 CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(d == NULL);
    CHECK(contractpin_decision_action(NULL) == CONTRACTPIN_ACTION_DROP);
    CHECK(contractpin_decision_event_count(NULL) == 0);
    contractpin_decision_free(NULL);
    contractpin_enforcer_free(NULL);
}

/* The session's summary, read as a decision. */
static struct decided summary(contractpin_enforcer *e) {
    contractpin_decision *d = NULL;
    CHECK_STATUS(contractpin_enforcer_summary(e, &d), CONTRACTPIN_STATUS_OK);
    return read_decision(d);
}

/* Past the first 100 of a kind, dropped lines get no event of their own:
 * the summary counts them once, then starts from zero. */
static void test_summary(const contractpin_lock *lock) {
    contractpin_enforcer *e = NULL;
    contractpin_decision *d = NULL;
    struct decided r;
    size_t events = 0;
    CHECK_STATUS(contractpin_enforcer_new(lock, U8("example"), 7, 0, NULL, &e),
                 CONTRACTPIN_STATUS_OK);
    r = summary(e);
    CHECK(r.action == CONTRACTPIN_ACTION_DROP && r.bytes == NULL && r.reply == NULL);
    CHECK(r.events == 0);
    contractpin_decision_free(r.d);
    for (int i = 0; i < 103; i++) {
        r = server(e, "junk");
        CHECK(r.action == CONTRACTPIN_ACTION_DROP);
        events += r.events;
        contractpin_decision_free(r.d);
    }
    CHECK(events == 100);
    r = summary(e);
    CHECK(r.action == CONTRACTPIN_ACTION_DROP && r.bytes == NULL && r.reply == NULL);
    CHECK(r.events == 1);
    CHECK(event_is(&r, 0,
                   "{\"count\":3,\"reason\":\"3 more server line(s) that are not JSON-RPC "
                   "messages were dropped; only the first 100 of a session are logged one by "
                   "one\",\"server\":\"example\",\"status\":\"skipped-more\"}"));
    contractpin_decision_free(r.d);
    r = summary(e);
    CHECK(r.events == 0);
    contractpin_decision_free(r.d);
    CHECK_STATUS(contractpin_enforcer_summary(NULL, &d), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK_STATUS(contractpin_enforcer_summary(e, NULL), CONTRACTPIN_STATUS_NULL_ARGUMENT);
    CHECK(d == NULL);
    contractpin_enforcer_free(e);
}

long run_enforcer_tests(const char *dir) {
    struct example ex;
    long n = 0;
    if (load_example(dir, &ex) != 0) return 0;
    test_session(ex.lock, ex.clean, ex.clean_len, ex.drifted, ex.drifted_len), n++;
    test_argument_errors(ex.lock), n++;
    test_summary(ex.lock), n++;
    free_example(&ex);
    return n;
}
