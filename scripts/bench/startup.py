#!/usr/bin/env python3
"""Start-up of whole `tern` processes on a given store (issue 38): a command that reads the store to its
first line of output, and `tern serve` to its first answered HTTP request.

Each run is a fresh process against $TERN_HOME (or --home). For the command (`tern threads --limit 50` unless
--command says otherwise) two times are taken from spawn: its first line on standard output and its exit.
For `tern serve --no-sync` on a free loopback port, the time from spawn until a TCP connection is accepted and
an HTTP request is answered (any status: the request carries no sign-in token), then the server is stopped
with SIGTERM. The command's CPU time (user and system, from wait4) is reported too. One untimed run of each first (page cache warm). Prints one JSON object with every run and the
p50 and p95 of each.

    scripts/bench/startup.py --tern .build/release/tern --home ~/.local/share/tern [--runs 20] [--command threads --limit 50]
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import time


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def summary(values):
    return {
        "p50_ms": round(percentile(values, 0.5), 2),
        "p95_ms": round(percentile(values, 0.95), 2),
        "min_ms": round(min(values), 2),
        "mean_ms": round(statistics.mean(values), 2),
        "runs_ms": [round(value, 2) for value in values],
    }


def command_run(tern, arguments, environment):
    """(first line, exit, CPU) in milliseconds: wall times from spawn, and the process's user and system time
    (what a loaded machine changes least)."""
    start = time.perf_counter()
    process = subprocess.Popen([tern, *arguments], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
    first_line = process.stdout.readline()
    first = (time.perf_counter() - start) * 1000
    process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    end = (time.perf_counter() - start) * 1000
    if process.returncode != 0:
        raise SystemExit(f"tern {' '.join(arguments)} exited with {process.returncode}")
    if not first_line:
        first = end
    return first, end, (usage.ru_utime + usage.ru_stime) * 1000


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_run(tern, environment, timeout=60.0):
    """Milliseconds from spawn to the first answered HTTP request."""
    port = free_port()
    start = time.perf_counter()
    process = subprocess.Popen(
        [tern, "serve", "--no-sync", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    try:
        while True:
            if process.poll() is not None:
                raise SystemExit(f"tern serve exited with {process.returncode}")
            if time.perf_counter() - start > timeout:
                raise SystemExit("tern serve did not answer in time")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
                    connection.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
                    if connection.recv(12).startswith(b"HTTP/1.1"):
                        return (time.perf_counter() - start) * 1000
            except (ConnectionRefusedError, ConnectionResetError):
                time.sleep(0.0005)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tern", default=".build/release/tern")
    parser.add_argument("--home", default=os.environ.get("TERN_HOME"), help="the store's TERN_HOME (default $TERN_HOME)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-serve", action="store_true", help="time the command only")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command timed (default: threads --limit 50)")
    arguments = parser.parse_args()
    if not arguments.home:
        raise SystemExit("give --home or set TERN_HOME")
    command = [part for part in arguments.command if part != "--"] or ["threads", "--limit", "50"]
    environment = dict(os.environ, TERN_HOME=arguments.home)
    command_run(arguments.tern, command, environment)
    firsts, ends, cpus = [], [], []
    for _ in range(arguments.runs):
        first, end, cpu = command_run(arguments.tern, command, environment)
        firsts.append(first)
        ends.append(end)
        cpus.append(cpu)
    report = {
        "tern": arguments.tern,
        "home": arguments.home,
        "command": ["tern", *command],
        "first_line": summary(firsts),
        "exit": summary(ends),
        "cpu": summary(cpus),
        "load_average": os.getloadavg(),
    }
    if not arguments.no_serve:
        serve_run(arguments.tern, environment)
        report["serve_first_answer"] = summary([serve_run(arguments.tern, environment) for _ in range(arguments.runs)])
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
