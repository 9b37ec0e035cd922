#!/usr/bin/env python3
"""Records a server's answer to one UID FETCH (the decrypted bytes, up to and including the tagged
OK) into a file, so `tern-bench imap --replay` and imaplib can parse the same bytes without the
server in the loop."""
import argparse, os, socket, ssl

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--ca", required=True)
parser.add_argument("--user", required=True)
parser.add_argument("--password", required=True)
parser.add_argument("--mailbox", required=True)
parser.add_argument("--items", default="(FLAGS ENVELOPE BODYSTRUCTURE)")
parser.add_argument("output")
args = parser.parse_args()

context = ssl.create_default_context(cafile=args.ca)
sock = context.wrap_socket(socket.create_connection((args.host, args.port)), server_hostname=args.host)
reader = sock.makefile("rb")
reader.readline()


def command(tag, text):
    sock.sendall(b"%s %s\r\n" % (tag, text.encode()))
    while True:
        line = reader.readline()
        if line.startswith(tag + b" "):
            return line


command(b"a", "LOGIN %s %s" % (args.user, args.password))
command(b"b", 'EXAMINE "%s"' % args.mailbox)
sock.sendall(b"t1 UID FETCH 1:* %s\r\n" % args.items.encode())
with open(args.output, "wb") as out:
    while True:
        line = reader.readline()
        out.write(line)
        if line.endswith(b"}\r\n"):
            size = int(line[line.rindex(b"{") + 1:-3].rstrip(b"+"))
            out.write(reader.read(size))
        if line.startswith(b"t1 "):
            break
print(os.path.getsize(args.output), "bytes recorded in", args.output)
