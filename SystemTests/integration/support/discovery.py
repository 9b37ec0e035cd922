"""Servers for issue 35's discovery tests: an HTTPS server of clientConfig documents (autoconfig and an ISPDB-compatible
database) with a certificate the test CA signs, and a DNS server of SRV and MX records. Both record what they were asked,
so a test can show that nothing was asked without consent. Standard library only."""
import http.server
import pathlib
import socket
import socketserver
import ssl
import struct
import subprocess
import threading

from support.servers import free_port


def signed_certificate(servers, directory, names):
    """A key and certificate for the DNS `names` (and localhost, 127.0.0.1) signed by the test servers' CA: the paths."""
    directory = pathlib.Path(directory)
    ca = pathlib.Path(servers["TERN_TEST_CA"])
    ca_key = ca.with_name("ca.key")
    key, csr, cert, ext = (directory / name for name in ("autoconfig.key", "autoconfig.csr", "autoconfig.crt", "autoconfig.ext"))
    subject_names = ",".join([f"DNS:{name}" for name in ["localhost", *names]] + ["IP:127.0.0.1"])
    ext.write_text(f"subjectAltName={subject_names}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    subprocess.run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=localhost",
                    "-keyout", str(key), "-out", str(csr)], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
                    "-CAserial", str(directory / "ca.srl"), "-days", "2", "-extfile", str(ext), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


def client_config(imap_host, imap_port, smtp_host, smtp_port, imap_socket="SSL", smtp_socket="SSL", username="%EMAILADDRESS%",
                  name="Test Mail"):
    """A clientConfig 1.1 document (Thunderbird's format) for one IMAP and one SMTP server."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<clientConfig version="1.1">
  <emailProvider id="test">
    <displayName>{name}</displayName>
    <incomingServer type="imap">
      <hostname>{imap_host}</hostname><port>{imap_port}</port><socketType>{imap_socket}</socketType>
      <username>{username}</username><authentication>password-cleartext</authentication>
    </incomingServer>
    <outgoingServer type="smtp">
      <hostname>{smtp_host}</hostname><port>{smtp_port}</port><socketType>{smtp_socket}</socketType>
      <username>{username}</username><authentication>password-cleartext</authentication>
    </outgoingServer>
  </emailProvider>
</clientConfig>
"""


class DocumentServer:
    """HTTPS on 127.0.0.1 serving `documents` ({(host, path): text}); anything else is 404. `requests` lists each
    (host, path) asked, the host from the Host header without its port."""

    def __init__(self, certificate, key):
        self.documents = {}
        self.requests = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0].lower()
                owner.requests.append((host, self.path))
                body = owner.documents.get((host, self.path))
                self.send_response(200 if body is not None else 404)
                payload = (body or "not here").encode()
                self.send_header("Content-Type", "application/xml" if body is not None else "text/plain")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def resolve(self, *hosts):
        """`TERN_DISCOVERY_RESOLVE`'s value sending each of `hosts` to this server."""
        return ",".join(f"{host}:{self.port}" for host in hosts)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def dns_name(name):
    return b"".join(bytes([len(label)]) + label.encode() for label in name.rstrip(".").split(".")) + b"\0"


class DNSServer:
    """RFC 1035 over UDP and TCP on 127.0.0.1: answers from `records` ({(name, "SRV"|"MX"): [record…]}, an SRV record
    (priority, weight, port, target), an MX record (preference, exchange)); other names get NXDOMAIN. Over UDP the names
    in `truncate` get an empty answer with the TC bit, so the client must ask again over TCP. With `spoof`, every UDP
    answer is preceded by a forged one (another id, pointing MX and SRV at evil.example), which the client must ignore.
    `queries` lists each (transport, name, type) asked."""

    TYPES = {33: "SRV", 15: "MX"}

    def __init__(self):
        self.records = {}
        self.truncate = set()
        self.spoof = False
        self.queries = []
        self.port = self._free_udp_and_tcp_port()
        owner = self

        class UDPHandler(socketserver.BaseRequestHandler):
            def handle(self):
                data, sock = self.request
                if owner.spoof:
                    forged = bytes([data[0] ^ 0xFF, data[1]]) + data[2:]
                    sock.sendto(owner.answer(forged, "forged", forged=True), self.client_address)
                sock.sendto(owner.answer(data, "udp"), self.client_address)

        class TCPHandler(socketserver.BaseRequestHandler):
            def handle(self):
                length = struct.unpack(">H", self._read(2))[0]
                reply = owner.answer(self._read(length), "tcp")
                self.request.sendall(struct.pack(">H", len(reply)) + reply)

            def _read(self, count):
                data = b""
                while len(data) < count:
                    chunk = self.request.recv(count - len(data))
                    if not chunk:
                        raise ConnectionError("closed")
                    data += chunk
                return data

        self.udp = socketserver.ThreadingUDPServer(("127.0.0.1", self.port), UDPHandler)
        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), TCPHandler)
        for server in (self.udp, self.tcp):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    @staticmethod
    def _free_udp_and_tcp_port():
        for _ in range(50):
            port = free_port()
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                    return port
                except OSError:
                    continue
        raise RuntimeError("no port free for both UDP and TCP")

    @property
    def address(self):
        """`TERN_DNS_SERVER`'s value."""
        return f"127.0.0.1:{self.port}"

    def answer(self, query, transport, forged=False):
        ident, _flags, qdcount = struct.unpack(">HHH", query[:6])
        labels, offset = [], 12
        while query[offset]:
            length = query[offset]
            labels.append(query[offset + 1:offset + 1 + length].decode().lower())
            offset += 1 + length
        qtype = struct.unpack(">H", query[offset + 1:offset + 3])[0]
        question = query[12:offset + 5]
        name, kind = ".".join(labels), self.TYPES.get(qtype, str(qtype))
        if not forged:
            self.queries.append((transport, name, kind))
        records = self.records.get((name, kind))
        if forged:
            records = [(0, 0, 993, "evil.example.")] if kind == "SRV" else [(0, "evil.example.")]
        if records is None:
            return struct.pack(">HHHHHH", ident, 0x8183, 1, 0, 0, 0) + question
        if transport == "udp" and name in self.truncate:
            return struct.pack(">HHHHHH", ident, 0x8380, 1, 0, 0, 0) + question
        answers = b""
        for record in records:
            if kind == "SRV":
                priority, weight, port, target = record
                data = struct.pack(">HHH", priority, weight, port) + dns_name(target)
            else:
                preference, exchange = record
                data = struct.pack(">H", preference) + dns_name(exchange)
            answers += b"\xc0\x0c" + struct.pack(">HHIH", qtype, 1, 300, len(data)) + data
        return struct.pack(">HHHHHH", ident, 0x8180, 1, len(records), 0, 0) + question + answers

    def close(self):
        for server in (self.udp, self.tcp):
            server.shutdown()
            server.server_close()
