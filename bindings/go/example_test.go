package contractpin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"contractpin.dev/go/contractpin"
)

// An MCP client refuses a server whose tools drifted from the lock.
func Example() {
	dir := filepath.Join("..", "c", "testdata")
	lock, _ := os.ReadFile(filepath.Join(dir, "demo.lock"))
	live, _ := os.ReadFile(filepath.Join(dir, "tools-drifted.json"))

	report, err := contractpin.Verify(lock, "demo", live)
	if err != nil {
		fmt.Println("refusing server:", err)
		return
	}
	for _, t := range report.Tools {
		fmt.Println(t.Status, t.Name, t.ChangedFields)
	}
	fmt.Println("exit code", report.ExitCode)
	// Output:
	// unchanged add []
	// drifted echo [description]
	// exit code 1
}

// An MCP client decides each tools/list page before its model sees it, as
// `contractpin proxy` would: the drifted tool is removed from the page,
// reported, and refused when called.
func ExampleLock_GuardPage() {
	dir := filepath.Join("..", "c", "testdata")
	lockBytes, _ := os.ReadFile(filepath.Join(dir, "demo.lock"))
	lock, err := contractpin.ParseLock(lockBytes) // once, at start-up
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer lock.Close()

	// The result object of the server's tools/list response, as received.
	page, _ := os.ReadFile(filepath.Join(dir, "tools-drifted.json"))
	decision, err := lock.GuardPage("demo", page, false)
	if err != nil {
		fmt.Println("refusing page:", err) // fail closed
		return
	}
	for _, e := range decision.Events {
		fmt.Println(e.Status, e.Tool, e.Changed) // or log e.JSON
	}
	var result struct{ Tools []struct{ Name string } }
	_ = json.Unmarshal(decision.Result, &result) // what the model sees
	for _, t := range result.Tools {
		fmt.Println("listed", t.Name)
	}
	for _, name := range []string{"add", "echo"} {
		fmt.Println("call", name, decision.Callable(name)) // before every tools/call
	}
	// Output:
	// drifted echo [description]
	// listed add
	// call add true
	// call echo false
}

// An MCP client keeps one Gate per session: each tools/list page it passes
// on goes to Page, and every tools/call is checked first, as `contractpin
// proxy` would (here against the shipped example: search_web and read_file
// drifted, export_data added, delete_record gone). In observe mode
// (GuardPage with observe true) the verdicts are the same; the client then
// sends a refused call anyway and logs the refusal's word, as `contractpin
// proxy --mode observe` does (call-unverified).
func ExampleGate() {
	dir := filepath.Join("..", "..", "examples")
	lockBytes, _ := os.ReadFile(filepath.Join(dir, "contractpin.lock"))
	lock, err := contractpin.ParseLock(lockBytes)
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer lock.Close()
	gate, err := contractpin.NewGate() // one per session
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer gate.Close()

	// The answer to tools/list without a cursor.
	page, _ := os.ReadFile(filepath.Join(dir, "drifted-tools-list.json"))
	decision, err := lock.GuardPage("example", page, false)
	if err != nil {
		_ = gate.Refused(contractpin.PageFirst) // fail closed: nothing callable
		fmt.Println("refusing page:", err)
		return
	}
	err = gate.Page(decision, contractpin.PageFirst)
	decision.Close() // optional: frees the library's copy early
	if err != nil {
		fmt.Println("refusing page:", err) // do not pass the page on; the gate now refuses
		return
	}
	// Then hand on decision.Result.

	// Before every tools/call (name: the request's name as decoded from
	// its JSON, whole):
	for _, name := range []string{"translate", "search_web", "export_data", "delete_record"} {
		var refused *contractpin.CallRefusedError
		if err := gate.Check(name); errors.As(err, &refused) {
			fmt.Println("refuse", name, refused.Refusal)
		} else if err == nil {
			fmt.Println("call", name)
		}
	}
	// On notifications/tools/list_changed:
	_ = gate.ListChanged()
	fmt.Println(gate.Check("translate"))
	// Output:
	// call translate
	// refuse search_web drifted
	// refuse export_data unpinned
	// refuse delete_record not-listed
	// contractpin: tools/call of "translate" refused: list-changed: the server announced that its tools changed (notifications/tools/list_changed); list the tools again
}

// In observe mode the gate's verdicts are the same (a page decided with
// observe true keeps its drifted and unpinned tools, but Check refuses
// them); the client sends a refused call anyway and logs the refusal's
// word, as `contractpin proxy --mode observe` logs call-unverified.
func ExampleGate_observe() {
	dir := filepath.Join("..", "..", "examples")
	lockBytes, _ := os.ReadFile(filepath.Join(dir, "contractpin.lock"))
	lock, err := contractpin.ParseLock(lockBytes)
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer lock.Close()
	gate, err := contractpin.NewGate()
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer gate.Close()

	page, _ := os.ReadFile(filepath.Join(dir, "drifted-tools-list.json"))
	decision, err := lock.GuardPage("example", page, true) // observe
	if err != nil {
		_ = gate.Refused(contractpin.PageFirst)
		fmt.Println("unchecked page:", err)
		return
	}
	err = gate.Page(decision, contractpin.PageFirst)
	decision.Close()
	if err != nil {
		fmt.Println("refusing page:", err) // the gate now refuses
		return
	}
	for _, name := range []string{"translate", "search_web", "export_data"} {
		var refused *contractpin.CallRefusedError
		if err := gate.Check(name); errors.As(err, &refused) {
			fmt.Println("call-unverified", name, refused.Refusal) // log it, then send it anyway
		} else if err != nil {
			fmt.Println("call-unverified", name, err)
		}
		fmt.Println("send", name)
	}
	// Output:
	// send translate
	// call-unverified search_web drifted
	// send search_web
	// call-unverified export_data unpinned
	// send export_data
}

func ExampleToolDigest() {
	d, err := contractpin.ToolDigest([]byte(`{"name":"echo","description":"Echo back","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`))
	fmt.Println(d, err)
	// Output: sha256:6f03644ed9f8359b37fef4fee1a2525b6f6bf05124ec4fbb4af7fd17e01e0c13 <nil>
}

func ExampleCanonicalize() {
	_, err := contractpin.Canonicalize([]byte(`{"a":1,"a":2}`))
	var e *contractpin.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind.Name(), e.Offset, errors.Is(err, contractpin.ErrDuplicateKey))
	}
	// Output: duplicate-key 7 true
}
