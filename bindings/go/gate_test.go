package contractpin

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The tool-call gate (contractpin_gate_*) driven as tests/ffi_gate.rs drives
// the C ABI. The expected verdicts do not come from the gate: they follow
// from the verdicts README.md documents for the shipped example (against
// examples/contractpin.lock, tools-list.json passes whole; in
// drifted-tools-list.json search_web and read_file drifted, export_data
// added, translate unchanged, delete_record absent) and from the policy as
// docs/C_ABI.md ("What the embedding client keeps between pages") states it.

// gateTools are the example's five tools, in the order of every verdicts
// array below.
var gateTools = [5]string{"search_web", "read_file", "translate", "delete_record", "export_data"}

// gateSession is one session against the example lock.
type gateSession struct {
	t       *testing.T
	lock    *Lock
	clean   []byte // examples/tools-list.json
	drifted []byte // examples/drifted-tools-list.json
	g       *Gate
}

func newGateSession(t *testing.T) *gateSession {
	t.Helper()
	g, err := NewGate()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return &gateSession{
		t:       t,
		lock:    parseLock(t, readExample(t, "contractpin.lock")),
		clean:   readExample(t, "tools-list.json"),
		drifted: readExample(t, "drifted-tools-list.json"),
		g:       g,
	}
}

// decide is GuardPage for server example; the caller closes the result.
func (s *gateSession) decide(page []byte, observe bool) *GuardResult {
	s.t.Helper()
	r, err := s.lock.GuardPage("example", page, observe)
	if err != nil {
		s.t.Fatal(err)
	}
	return r
}

// page gives the gate the decision on page as kind; the decision is closed
// before the gate is asked anything.
func (s *gateSession) page(page []byte, observe bool, kind PageKind) {
	s.t.Helper()
	r := s.decide(page, observe)
	err := s.g.Page(r, kind)
	r.Close()
	if err != nil {
		s.t.Fatalf("Page(kind %d): %v", kind, err)
	}
}

func (s *gateSession) refused(kind PageKind) {
	s.t.Helper()
	if err := s.g.Refused(kind); err != nil {
		s.t.Fatalf("Refused(kind %d): %v", kind, err)
	}
}

func (s *gateSession) listChanged() {
	s.t.Helper()
	if err := s.g.ListChanged(); err != nil {
		s.t.Fatal(err)
	}
}

// verdict is Check's answer as a Refusal (RefusalCallable for nil).
func verdict(t *testing.T, g *Gate, name string) Refusal {
	t.Helper()
	err := g.Check(name)
	if err == nil {
		return RefusalCallable
	}
	var re *CallRefusedError
	if !errors.As(err, &re) {
		t.Fatalf("Check(%q): %v, not a *CallRefusedError", name, err)
	}
	if re.Tool != name || re.Refusal == RefusalCallable {
		t.Fatalf("Check(%q): %+v", name, re)
	}
	return re.Refusal
}

// verdicts is the verdict on each of gateTools.
func (s *gateSession) verdicts() [5]Refusal {
	s.t.Helper()
	var out [5]Refusal
	for i, name := range gateTools {
		out[i] = verdict(s.t, s.g, name)
	}
	return out
}

func (s *gateSession) want(step string, want [5]Refusal) {
	s.t.Helper()
	if got := s.verdicts(); got != want {
		s.t.Errorf("%s: verdicts %v, want %v (tools %v)", step, got, want, gateTools)
	}
}

func all(r Refusal) [5]Refusal { return [5]Refusal{r, r, r, r, r} }

const (
	callable  = RefusalCallable
	drifted   = RefusalDrifted
	unpinned  = RefusalUnpinned
	notListed = RefusalNotListed
)

func TestGateSession(t *testing.T) {
	s := newGateSession(t)
	s.want("before any listing", all(RefusalNoListing))
	// A clean listing: the four pinned tools.
	s.page(s.clean, false, PageFirst)
	cleanListing := [5]Refusal{callable, callable, callable, callable, notListed}
	s.want("clean listing", cleanListing)
	// The drifted listing replaces it.
	s.page(s.drifted, false, PageFirst)
	s.want("drifted listing", [5]Refusal{drifted, drifted, callable, notListed, unpinned})
	// The tools changed: nothing, and a late cursor page adds nothing.
	s.listChanged()
	s.want("list changed", all(RefusalListChanged))
	s.page(s.clean, false, PageNext)
	s.want("a cursor page after the change", all(RefusalListChanged))
	// Listed again. An unrequested page (any other response with a tools
	// result) only takes away what it reports, whichever mode decided it.
	for _, observe := range []bool{true, false} {
		s.page(s.clean, false, PageFirst)
		s.want("listed again", cleanListing)
		s.page(s.drifted, observe, PageUnmatched)
		s.want(fmt.Sprintf("unmatched page (observe %v)", observe),
			[5]Refusal{drifted, drifted, callable, callable, notListed})
	}
	// A cursor page of the current listing adds; then one is refused, and
	// the refused listing's later pages add nothing (the reasons the
	// listing kept still say why a tool is refused).
	s.page(s.clean, false, PageNext)
	s.want("cursor page", [5]Refusal{callable, callable, callable, callable, notListed})
	s.refused(PageNext)
	refused := [5]Refusal{drifted, drifted, notListed, notListed, notListed}
	s.want("refused cursor page", refused)
	s.page(s.clean, false, PageNext)
	s.want("a cursor page of the refused listing", refused)
	// A page decided in observe mode keeps its drifted and unpinned tools
	// (its own Callable says so), but the gate gives the proxy's verdicts
	// in either mode: an observe-mode client sends a refused call anyway
	// and logs the refusal, as `contractpin proxy --mode observe` does.
	observed := s.decide(s.drifted, true)
	if !observed.Callable("search_web") || !observed.Callable("export_data") {
		t.Error("observe: the decision does not keep its reported tools")
	}
	if err := s.g.Page(observed, PageFirst); err != nil {
		t.Fatal(err)
	}
	observed.Close()
	s.want("observe", [5]Refusal{drifted, drifted, callable, notListed, unpinned})
	// A refused first page leaves nothing.
	s.refused(PageFirst)
	s.want("refused first page", [5]Refusal{drifted, drifted, notListed, notListed, unpinned})
}

func TestGateRefusedCursorPageKeepsState(t *testing.T) {
	s := newGateSession(t)
	// Before any listing.
	s.refused(PageNext)
	s.page(s.clean, false, PageNext)
	s.page(s.clean, false, PageUnmatched)
	s.want("before any listing", all(RefusalNoListing))
	// After a change.
	s.page(s.clean, false, PageFirst)
	s.listChanged()
	s.refused(PageUnmatched)
	s.want("after a change", all(RefusalListChanged))

	// A cursor page that fails is refused as a cursor page (fail closed):
	// it keeps those states too.
	closed := s.decide(s.clean, false)
	closed.Close()
	for what, page := range map[string]func(*Gate) error{
		"nil result":    func(g *Gate) error { return g.Page(nil, PageNext) },
		"closed result": func(g *Gate) error { return g.Page(closed, PageNext) },
	} {
		before := newGateSession(t)
		if page(before.g) == nil {
			t.Errorf("%s: no error", what)
		}
		before.want(what+", before any listing", all(RefusalNoListing))
		if page(s.g) == nil {
			t.Errorf("%s: no error", what)
		}
		s.want(what+", after a change", all(RefusalListChanged))
	}
}

// A result outlives its lock, and one result may be given to several gates.
func TestGateResultOutlivesLock(t *testing.T) {
	s := newGateSession(t)
	r := s.decide(s.drifted, false)
	defer r.Close()
	s.lock.Close()
	other, err := NewGate()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, g := range []*Gate{s.g, other} {
		if err := g.Page(r, PageFirst); err != nil {
			t.Fatal(err)
		}
	}
	s.want("own gate", [5]Refusal{drifted, drifted, callable, notListed, unpinned})
	if v := verdict(t, other, "translate"); v != callable {
		t.Errorf("other gate: translate %v", v)
	}
	// A copy of the struct shares the library's decision.
	cp := *r
	r.Close()
	if err := s.g.Page(&cp, PageFirst); !errors.Is(err, ErrResultClosed) {
		t.Errorf("a copy of a closed result: %v", err)
	}
	// That failure refused the page: nothing is callable (the drifted
	// listing's reasons still say why).
	s.want("a closed result", [5]Refusal{drifted, drifted, notListed, notListed, unpinned})
	if !r.Callable("translate") || r.Callable("search_web") {
		t.Error("Callable after Close")
	}
}

// wantStatus says err is an *Error of kind, without an offset.
func wantStatus(t *testing.T, what string, err error, kind Status) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Kind != kind || e.Offset != -1 || !errors.Is(err, kind) {
		t.Errorf("%s: %v, want %v", what, err, kind)
	}
}

// Every failure of Page or Refused with a live gate leaves it refusing
// until a new listing (fail closed): after a clean listing, nothing is
// callable, a cursor page adds nothing, and a new first page restores it.
func TestGateArgumentErrors(t *testing.T) {
	s := newGateSession(t)
	cleanListing := [5]Refusal{callable, callable, callable, callable, notListed}
	r := s.decide(s.drifted, false)
	defer r.Close()
	closed := s.decide(s.clean, false)
	closed.Close()
	closed.Close()
	unknown := []PageKind{3, math.MaxUint32}
	type failure struct {
		what string
		do   func() error
		want error // ErrResultClosed, or the Status of an *Error
	}
	var failures []failure
	for _, k := range unknown {
		k := k // go 1.21: one variable for the loop
		failures = append(failures,
			failure{fmt.Sprintf("page kind %d", k), func() error { return s.g.Page(r, k) }, ErrInvalidArgument},
			failure{fmt.Sprintf("refused, kind %d", k), func() error { return s.g.Refused(k) }, ErrInvalidArgument},
			// A missing or closed result is checked before the kind.
			failure{fmt.Sprintf("nil result, kind %d", k), func() error { return s.g.Page(nil, k) }, ErrNullArgument},
			failure{fmt.Sprintf("closed result, kind %d", k), func() error { return s.g.Page(closed, k) }, ErrResultClosed},
		)
	}
	for _, k := range []PageKind{PageFirst, PageNext, PageUnmatched} {
		k := k // go 1.21: one variable for the loop
		failures = append(failures,
			failure{fmt.Sprintf("nil result, kind %d", k), func() error { return s.g.Page(nil, k) }, ErrNullArgument},
			failure{fmt.Sprintf("a result not from GuardPage, kind %d", k), func() error { return s.g.Page(&GuardResult{}, k) }, ErrNullArgument},
			failure{fmt.Sprintf("closed result, kind %d", k), func() error { return s.g.Page(closed, k) }, ErrResultClosed},
		)
	}
	for _, f := range failures {
		s.page(s.clean, false, PageFirst)
		s.want(f.what+": the listing before", cleanListing)
		err := f.do()
		if kind, ok := f.want.(Status); ok {
			wantStatus(t, f.what, err, kind)
		} else if err != f.want {
			t.Errorf("%s: %v, want %v", f.what, err, f.want)
		}
		s.want(f.what, all(notListed))
		s.page(s.clean, false, PageNext)
		s.want(f.what+", then a cursor page", all(notListed))
		s.page(s.clean, false, PageFirst)
		s.want(f.what+", then a new listing", cleanListing)
	}

	// Names are exact; the empty name was never listed; a name that is not
	// UTF-8 is an invalid argument.
	for _, name := range []string{"Translate", "translate ", "translat", "search_web\x00", ""} {
		if v := verdict(t, s.g, name); v != notListed {
			t.Errorf("%q: %v", name, v)
		}
	}
	if v := verdict(t, s.g, "\xfftranslate"); v != RefusalInvalidArgument {
		t.Errorf("not UTF-8: %v", v)
	}
	// The name as decoded from the request's JSON, whole: a \u0000 in it is
	// part of the name (never cut there), and escapes are decoded.
	for raw, want := range map[string]Refusal{
		`"translate\u0000"`:   notListed,
		`"search_web\u0000x"`: notListed,
		`"trans\u006cate"`:    callable,
	} {
		var name string
		if err := json.Unmarshal([]byte(raw), &name); err != nil {
			t.Fatal(err)
		}
		if v := verdict(t, s.g, name); v != want {
			t.Errorf("decoded %s (%q): %v, want %v", raw, name, v, want)
		}
	}

	// A closed gate.
	live := s.decide(s.clean, false)
	defer live.Close()
	s.g.Close()
	s.g.Close()
	for what, err := range map[string]error{
		"Page":        s.g.Page(live, PageFirst),
		"Refused":     s.g.Refused(PageFirst),
		"ListChanged": s.g.ListChanged(),
		"Check":       s.g.Check("translate"),
	} {
		if !errors.Is(err, ErrGateClosed) {
			t.Errorf("%s on a closed gate: %v", what, err)
		}
	}
}

func TestGateStableNumbersAndNames(t *testing.T) {
	if got := [3]PageKind{PageFirst, PageNext, PageUnmatched}; got != [3]PageKind{0, 1, 2} {
		t.Errorf("page kinds %v", got)
	}
	// The words of `contractpin proxy --log` (docs/C_ABI.md), 0 to 7.
	names := []string{
		"callable", "no-listing", "list-changed", "drifted",
		"unpinned", "not-listed", "no-name", "invalid-argument",
	}
	values := []Refusal{
		RefusalCallable, RefusalNoListing, RefusalListChanged, RefusalDrifted,
		RefusalUnpinned, RefusalNotListed, RefusalNoName, RefusalInvalidArgument,
	}
	for i, v := range values {
		if uint32(v) != uint32(i) || v.Name() != names[i] || fmt.Sprint(v) != names[i] {
			t.Errorf("refusal %d: %d %q", i, uint32(v), v.Name())
		}
		m := v.Message()
		if len(m) <= 15 || strings.ContainsFunc(m, func(r rune) bool { return r > 0x7e || r < 0x20 }) {
			t.Errorf("refusal %d: message %q", i, m)
		}
	}
	if m := RefusalListChanged.Message(); !strings.Contains(m, "notifications/tools/list_changed") {
		t.Errorf("list-changed: %q", m)
	}
	if m := RefusalNotListed.Message(); m != "the tool was not in the latest checked tools/list" {
		t.Errorf("not-listed: %q", m)
	}
	for _, unknown := range []Refusal{8, 99, math.MaxUint32} {
		if unknown.Name() != "unknown-refusal" || unknown.Message() != "unknown refusal code" {
			t.Errorf("%d: %q %q", uint32(unknown), unknown.Name(), unknown.Message())
		}
	}

	// The error of a refused call: its tool (quoted), word and sentence.
	s := newGateSession(t)
	s.page(s.drifted, false, PageFirst)
	err := s.g.Check("search_web")
	want := `contractpin: tools/call of "search_web" refused: drifted: ` + RefusalDrifted.Message()
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	var re *CallRefusedError
	if !errors.As(err, &re) || re.Refusal != RefusalDrifted || re.Tool != "search_web" {
		t.Errorf("errors.As: %#v", err)
	}
	if err := s.g.Check("evil\n\x1b[2J"); err == nil || strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Errorf("an unprintable name is quoted: %q", err)
	}
}

// Checks from several goroutines while the session moves between the clean
// and the drifted listing, then Close while they run.
func TestGateConcurrent(t *testing.T) {
	s := newGateSession(t)
	clean := s.decide(s.clean, false)
	defer clean.Close()
	drift := s.decide(s.drifted, false)
	defer drift.Close()
	if err := s.g.Page(clean, PageFirst); err != nil {
		t.Fatal(err)
	}
	// What each tool may be under either listing.
	allowed := map[string][2]Refusal{
		"search_web":    {callable, drifted},
		"read_file":     {callable, drifted},
		"translate":     {callable, callable},
		"delete_record": {callable, notListed},
		"export_data":   {notListed, unpinned},
	}
	var wg sync.WaitGroup
	started := make(chan struct{}, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			signalled := false
			defer func() {
				if !signalled { // a failed goroutine does not hang the test
					started <- struct{}{}
				}
			}()
			for j := 0; ; j++ {
				err := s.g.Check(name)
				if errors.Is(err, ErrGateClosed) {
					return
				}
				v := callable
				var re *CallRefusedError
				if errors.As(err, &re) {
					v = re.Refusal
				} else if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				if a := allowed[name]; v != a[0] && v != a[1] {
					t.Errorf("%s: %v", name, v)
					return
				}
				if j == 10 {
					started <- struct{}{}
					signalled = true
				}
			}
		}(gateTools[i%len(gateTools)])
	}
	for i := 0; i < 100; i++ {
		r := clean
		if i%2 == 0 {
			r = drift
		}
		if err := s.g.Page(r, PageFirst); err != nil {
			t.Fatal(err)
		}
		if i == 50 {
			for j := 0; j < 8; j++ {
				<-started
			}
		}
	}
	s.g.Close() // waits for the calls in flight; later calls fail
	wg.Wait()
}

// Results and gates left to their finalizers (some closed first) are
// released once, while a live gate keeps its state.
func TestGateFinalizers(t *testing.T) {
	s := newGateSession(t)
	for i := 0; i < 50; i++ {
		r := s.decide(s.drifted, i%2 == 0)
		g, err := NewGate()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Page(r, PageFirst); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			r.Close()
			g.Close()
		}
	}
	s.page(s.clean, false, PageFirst)
	runtime.GC()
	runtime.GC()
	s.want("after the collections", [5]Refusal{callable, callable, callable, callable, notListed})
}
