#!/usr/bin/env python3
"""The peer of `tern-bench send`: Python's smtplib submitting the same messages the same way: 20
messages alone (a TLS connection, login and transaction each; timed per message), then `count`
messages on one connection (throughput). Prints one JSON object."""
import argparse
import json
import smtplib
import ssl
import statistics
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--to", required=True)
    parser.add_argument("--count", type=int, default=100)
    args = parser.parse_args()
    context = ssl.create_default_context(cafile=args.ca)
    body = "Tern send benchmark: a line of ordinary text, like a short reply.\n" * 16
    def message(index, total):
        message = EmailMessage()
        message["From"] = args.user
        message["To"] = args.to
        message["Subject"] = f"Python bench {index}/{total}"
        message["Date"] = formatdate(localtime=False)
        message["Message-ID"] = make_msgid(domain=args.user.split("@")[-1])
        message.set_content(body)
        return message

    times = []
    for index in range(1, 21):
        began = time.perf_counter()
        with smtplib.SMTP_SSL(args.host, args.port, context=context) as smtp:
            smtp.login(args.user, args.password)
            smtp.send_message(message(index, 20))
        times.append((time.perf_counter() - began) * 1000)
    start = time.perf_counter()
    with smtplib.SMTP_SSL(args.host, args.port, context=context) as smtp:
        smtp.login(args.user, args.password)
        for index in range(1, args.count + 1):
            smtp.send_message(message(index, args.count))
    seconds = time.perf_counter() - start
    times.sort()
    print(json.dumps({"tool": "python smtplib", "messages": args.count, "sent": args.count, "sendSeconds": seconds,
                      "messagesPerSecond": args.count / seconds, "medianMilliseconds": statistics.median(times),
                      "p95Milliseconds": times[min(len(times) - 1, int(len(times) * 0.95))]}))


if __name__ == "__main__":
    main()
