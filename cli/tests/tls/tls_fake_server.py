#!/usr/bin/env python3
"""tests/mcp/fake_server.py behind TLS, for cli/tests/tls.rs.  Standard library only.

    tls_fake_server.py CERT.pem KEY.pem [fake_server.py options...]

Runs fake_server.py (its HTTP transports: --transport http or sse) with the
listening socket wrapped in TLS: CERT.pem (the server certificate, then any
intermediates) and KEY.pem are presented to every client.  Nothing about the
MCP side changes; fake_server.py is imported, not copied.  A client that
rejects the certificate just aborts its handshake: the server keeps serving.
"""

import os
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "mcp"))
import fake_server  # noqa: E402  (after the path tweak)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cert, key, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)

    class TlsServer(fake_server.Server):
        def server_bind(self):
            super().server_bind()
            # The handshake runs in accept(); a failed one raises ssl.SSLError
            # (an OSError), which socketserver drops before serving the next.
            self.socket = ctx.wrap_socket(self.socket, server_side=True)

    fake_server.Server = TlsServer
    fake_server.main(rest)


if __name__ == "__main__":
    main()
