package contractpin_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"contractpin.dev/go/contractpin"
)

// An MCP client embeds the whole check of `contractpin proxy` at its
// transport, the one place every message of the session goes through:
// each message it sends goes through Client, each one the server sent
// through Server, and only what the decision says is passed on. Here the
// server answers the listing with examples/drifted-tools-list.json:
// search_web and read_file drifted, export_data is not pinned, so only
// translate reaches the client, and a call to search_web is answered
// without reaching the server.
func ExampleEnforcer() {
	dir := filepath.Join("..", "..", "examples")
	lockBytes, _ := os.ReadFile(filepath.Join(dir, "contractpin.lock"))
	lock, err := contractpin.ParseLock(lockBytes)
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	enforcer, err := lock.NewEnforcer("example", contractpin.EnforcerOptions{})
	lock.Close() // the enforcer keeps its own copy of the pins
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer enforcer.Close()

	// The two directions of the real transport.
	toServer := func(msg []byte) { fmt.Printf("to server: %s\n", msg) }
	toClient := func(msg []byte) {
		var m struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &m) == nil && m.Result.Tools != nil {
			fmt.Print("to client: tools")
			for _, tool := range m.Result.Tools {
				fmt.Print(" ", tool.Name)
			}
			fmt.Println()
			return
		}
		fmt.Printf("to client: %s\n", msg)
	}
	logEvents := func(d contractpin.Decision) {
		for _, line := range d.Events { // the proxy's --log lines, without "at"
			var e struct{ Status, Tool string }
			_ = json.Unmarshal(line, &e)
			fmt.Println("event:", e.Status, e.Tool)
		}
	}

	// A message the client sends.
	send := func(msg []byte) {
		d, err := enforcer.Client(msg)
		if err != nil {
			return // fail closed: send nothing
		}
		logEvents(d)
		if out := d.Forwarded(msg); out != nil {
			toServer(out)
		}
		if d.Reply != nil {
			toClient(d.Reply) // the answer in the server's place
		}
	}
	// A message the server sent.
	receive := func(msg []byte) {
		d, err := enforcer.Server(msg)
		if err != nil {
			return // fail closed: the client does not read it
		}
		logEvents(d)
		if out := d.Forwarded(msg); out != nil {
			toClient(out)
		}
	}

	send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	page, _ := os.ReadFile(filepath.Join(dir, "drifted-tools-list.json"))
	receive([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":%s}`, page)))
	send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_web","arguments":{"query":"x"}}}`))
	// Output:
	// to server: {"jsonrpc":"2.0","id":1,"method":"tools/list"}
	// event: drifted search_web
	// event: drifted read_file
	// event: unpinned export_data
	// to client: tools translate
	// event: call-refused search_web
	// to client: {"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Unknown tool: search_web","data":{"contractpin":"contractpin proxy: the tool's contract differs from the one pinned in contractpin.lock"}}}
}
