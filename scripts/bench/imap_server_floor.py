#!/usr/bin/env python3
"""What the server alone costs for `tern-bench imap`'s fetch: a raw TLS socket sends the same
UID FETCH and discards the answer unparsed, and Dovecot's imap process is charged the CPU time it
spent meanwhile (/proc/PID/stat, 10 ms ticks). No client can finish the fetch faster than the
wall time here, and on a machine of N cores no set of connections can beat server CPU / N.
Prints one JSON object: best and median wall seconds, server CPU seconds, bytes."""
import argparse, json, os, socket, ssl, statistics, subprocess, time

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--ca", required=True)
parser.add_argument("--user", required=True)
parser.add_argument("--password", required=True)
parser.add_argument("--mailbox", required=True)
parser.add_argument("--items", default="(FLAGS ENVELOPE BODYSTRUCTURE)")
parser.add_argument("--iterations", type=int, default=6)
parser.add_argument("--no-warm-up", action="store_true",
                    help="time the first fetch too: Dovecot's cache as it is (a first sync's cost on a server that never answered it)")
args = parser.parse_args()

ticks = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks


def until_tagged(reader, tag):
    while True:
        line = reader.readline()
        if not line:
            raise SystemExit("the server closed the connection")
        if line.startswith(tag + b" "):
            if not line.startswith(tag + b" OK"):
                raise SystemExit(line.decode(errors="replace").strip())
            return


def imap_processes():
    found = subprocess.run(["pgrep", "-f", "imap.*%s" % args.user], capture_output=True, text=True).stdout.split()
    return {int(pid) for pid in found}


def one_fetch():
    context = ssl.create_default_context(cafile=args.ca)
    before = imap_processes()
    sock = context.wrap_socket(socket.create_connection((args.host, args.port)), server_hostname="localhost")
    reader = sock.makefile("rb")
    reader.readline()
    sock.sendall(b"a LOGIN %s %s\r\n" % (args.user.encode(), args.password.encode()))
    until_tagged(reader, b"a")
    sock.sendall(b'b EXAMINE "%s"\r\n' % args.mailbox.encode())
    until_tagged(reader, b"b")
    mine = imap_processes() - before
    pid = max(mine) if mine else None
    cpu_before = cpu_seconds(pid) if pid else 0.0
    start = time.perf_counter()
    sock.sendall(b"c UID FETCH 1:* %s\r\n" % args.items.encode())
    received, tail = 0, b""
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            raise SystemExit("the server closed the connection")
        received += len(chunk)
        tail = (tail + chunk)[-256:]
        if b"\r\nc OK" in tail or b"\r\nc NO" in tail or b"\r\nc BAD" in tail:
            break
    wall = time.perf_counter() - start
    server_cpu = cpu_seconds(pid) - cpu_before if pid else None
    sock.close()
    return wall, server_cpu, received


if not args.no_warm_up:
    one_fetch()  # lets Dovecot fill its cache
runs = [one_fetch() for _ in range(args.iterations)]
walls = [run[0] for run in runs]
cpus = [run[1] for run in runs if run[1] is not None]
print(json.dumps({
    "tool": "raw TLS socket (no parsing)", "items": args.items, "bytes": runs[-1][2],
    "bestSeconds": round(min(walls), 4), "medianSeconds": round(statistics.median(walls), 4),
    "serverCPUSeconds": [round(cpu, 2) for cpu in cpus], "cores": os.cpu_count(),
}))
