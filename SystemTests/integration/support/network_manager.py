"""A private D-Bus bus where a stand-in for NetworkManager owns its name and emits `StateChanged` when told, so a
test can tell Tern, through the real D-Bus protocol and GLib's `gdbus`, that the network went away and came back
(issue 34). Run as a script, it is the stand-in: one NMState number per line of standard input."""
import os
import shutil
import subprocess
import sys
import time

BUS_NAME = "org.freedesktop.NetworkManager"
OBJECT_PATH = "/org/freedesktop/NetworkManager"


class FakeNetworkManager:
    """`dbus-daemon` on a socket in `directory`; `environment` points Tern's system bus at it."""

    def __init__(self, directory):
        assert shutil.which("dbus-daemon") and shutil.which("gdbus"), "scripts/install-deps installs dbus-daemon and gdbus"
        socket = os.path.join(directory, "system_bus_socket")
        self.address = f"unix:path={socket}"
        self.bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", f"--address={self.address}"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not os.path.exists(socket):
            assert time.monotonic() < deadline and self.bus.poll() is None, "dbus-daemon did not start"
            time.sleep(0.05)
        self.environment = {"DBUS_SYSTEM_BUS_ADDRESS": self.address}
        self.service = subprocess.Popen([sys.executable, __file__, self.address], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self.service.stdout.readline().strip() == "owned", "the stand-in did not take NetworkManager's name"

    def state(self, value):
        """Emits `StateChanged(value)`: 20 disconnected, 70 connected globally."""
        self.service.stdin.write(f"{value}\n")
        self.service.stdin.flush()
        assert self.service.stdout.readline().strip() == f"emitted {value}"

    def listeners(self):
        """The process ids of `gdbus monitor` processes on this bus (Tern's listeners)."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    command = file.read().split(b"\0")
                with open(f"/proc/{pid}/environ", "rb") as file:
                    environment = file.read().split(b"\0")
            except OSError:
                continue
            if command[:2] == [b"/usr/bin/gdbus", b"monitor"] and \
                    f"DBUS_SYSTEM_BUS_ADDRESS={self.address}".encode() in environment:
                found.append(int(pid))
        return found

    def stop(self):
        for process in (self.service, self.bus):
            process.kill()
            process.wait()


def _serve(address):
    import asyncio

    from dbus_next.aio import MessageBus
    from dbus_next.constants import PropertyAccess
    from dbus_next.service import ServiceInterface, dbus_property, signal

    class NetworkManager(ServiceInterface):
        def __init__(self):
            super().__init__(BUS_NAME)

        @dbus_property(access=PropertyAccess.READ)
        def Metered(self) -> "u":  # noqa: N802, F821 (what Tern's metered check reads: 4, "guess no")
            return 4

        @signal()
        def StateChanged(self, state) -> "u":  # noqa: N802, F821 (D-Bus names and signatures)
            return state

    async def main():
        bus = await MessageBus(bus_address=address).connect()
        manager = NetworkManager()
        bus.export(OBJECT_PATH, manager)
        await bus.request_name(BUS_NAME)
        print("owned", flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            manager.StateChanged(int(line))
            await asyncio.sleep(0.05)
            print(f"emitted {int(line)}", flush=True)

    asyncio.run(main())


if __name__ == "__main__":
    _serve(sys.argv[1])
