"""A mailing list's one-click unsubscribe server for issue 36's tests: HTTPS on localhost with the test servers'
certificate (Tern trusts its CA through TERN_UNSUBSCRIBE_CA_FILE), recording every request."""
import http.server
import pathlib
import ssl
import threading


class ListServer(http.server.BaseHTTPRequestHandler):
    """Records each request as a dict (method, path, headers, body); `/moved` answers 307 to another host, `/gone`
    404, anything else 200."""

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": body})
        if self.path.startswith("/moved"):
            self.send_response(307)
            self.send_header("Location", "https://127.0.0.2:9/elsewhere")
        elif self.path.startswith("/gone"):
            self.send_response(404)
        else:
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_HEAD = handle_any


def start_list_server(servers):
    """The server, running on a thread; `.requests` lists what it received, `.server_address[1]` its port."""
    tls = pathlib.Path(servers["TERN_MAILSERVERS_DIR"]) / "tls"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ListServer)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tls / "server.crt", tls / "server.key")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.requests = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
