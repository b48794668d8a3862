package mcpguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"contractpin.dev/go/contractpin"
	"contractpin.dev/go/contractpin/mcpguard"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	exampleDir  string // removed after the tests
	exampleLock string // `contractpin init --name srv -- SERVER -poison=echo` wrote it
)

// A client of the Go MCP SDK runs a stdio server with the whole check of
// `contractpin proxy` under it. The server (this test binary) showed
// contractpin a clean echo tool, which the lock pins, but serves every
// other client a poisoned one: the client never sees that echo, and
// calling it is answered in the server's place.
func ExampleCommandTransport() {
	lockBytes, err := os.ReadFile(exampleLock)
	if err != nil {
		fmt.Println(err)
		return
	}
	lock, err := contractpin.ParseLock(lockBytes)
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	enforcer, err := lock.NewEnforcer("srv", contractpin.EnforcerOptions{})
	lock.Close()
	if err != nil {
		fmt.Println("refusing to start:", err)
		return
	}
	defer enforcer.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example-client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcpguard.CommandTransport{
		Command:  serverCommand("-poison=echo"),
		Enforcer: enforcer,
		Options: mcpguard.Options{OnEvent: func(event []byte) {
			var e struct{ Status, Tool string }
			_ = json.Unmarshal(event, &e)
			fmt.Println("event:", strings.TrimSpace(e.Status+" "+e.Tool))
		}},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("tool:", tool.Name)
	}
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		fmt.Println("echo:", rpcErr.Code, rpcErr.Message)
	}
	// Output:
	// event: client
	// event: drifted echo
	// tool: add
	// tool: flood
	// tool: junk
	// tool: swap
	// event: call-refused echo
	// echo: -32602 Unknown tool: echo
}
