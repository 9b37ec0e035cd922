"""The project's TCP fault proxy (issue 20): 127.0.0.1:<port> → a server, for fault tests and the soak benchmark.

It forwards bytes both ways and can, on demand:
- cut the first connection once `cut_first_after` bytes came from the server (mid-FETCH, mid-greeting: during TLS),
  or once `cut_first_upload_after` bytes went to it (mid-APPEND);
- stall the first connection once `stall_first_after` bytes came from the server (a command that never finishes);
- cut every open connection now (`cut_all`), both ways at once, as a dropped link does;
- stall: hold every byte in both directions until released (`stall()`/`release()`), as a link that stops
  answering without closing does;
- refuse new connections (`refuse()`/`accept()`), as a server that is down does.
It counts the connections made, those open now and the most open at once.

Used as a module (`from faultproxy import FaultProxy`); `python3 scripts/faultproxy.py TARGET_PORT` runs one and
prints its port, for trying a fault by hand.
"""
import socket
import sys
import threading


class FaultProxy:
    def __init__(self, target_port, cut_first_after=None, cut_first_upload_after=None, stall_first_after=None,
                 target_host="127.0.0.1"):
        self.target = (target_host, target_port)
        self.cut_first_after = cut_first_after
        self.cut_first_upload_after = cut_first_upload_after
        self.stall_first_after = stall_first_after
        self.stalled_once = threading.Event()
        self.connections = 0
        self.cuts = 0
        self.open = 0
        self.peak_open = 0
        self.lock = threading.Lock()
        self.live = set()
        self.flowing = threading.Event()
        self.flowing.set()
        self.refusing = False
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing:
                client.close()
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections += 1
                self.open += 1
                self.peak_open = max(self.peak_open, self.open)
                first = self.connections == 1
                pair = (client, server)
                self.live.add(pair)
            download = self.cut_first_after if first else None
            upload = self.cut_first_upload_after if first else None
            stall = self.stall_first_after if first else None
            threading.Thread(target=self._pump, args=(client, server, upload, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, download, pair, stall), daemon=True).start()

    def _pump(self, source, sink, limit, pair, stall_after=None):
        """`pair` is given to the server-to-client pump, which accounts for the connection when it ends."""
        sent = 0
        try:
            while data := source.recv(65536):
                self.flowing.wait()
                if stall_after is not None and sent + len(data) >= stall_after:
                    sink.sendall(data[:max(0, stall_after - sent)])
                    self.stalled_once.set()
                    # Holds the rest for ever: the connection stays open and says nothing more.
                    threading.Event().wait()
                if limit is not None and sent + len(data) >= limit:
                    sink.sendall(data[:max(0, limit - sent)])
                    with self.lock:
                        self.cuts += 1
                    return
                sent += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            if pair is not None:
                for end in pair:
                    end.close()
                with self.lock:
                    self.open -= 1
                    self.live.discard(pair)

    def cut_all(self):
        """Shuts every open connection, both ways; returns how many."""
        with self.lock:
            pairs = list(self.live)
            self.cuts += len(pairs)
        for pair in pairs:
            for end in pair:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return len(pairs)

    def stall(self):
        self.flowing.clear()

    def release(self):
        self.flowing.set()

    def refuse(self):
        self.refusing = True

    def accept(self):
        self.refusing = False

    def close(self):
        self.release()
        self.listener.close()
        self.cut_all()


if __name__ == "__main__":
    proxy = FaultProxy(int(sys.argv[1]))
    print(proxy.port, flush=True)
    threading.Event().wait()
