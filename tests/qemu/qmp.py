#!/usr/bin/env python3
"""One monitor command to a running QEMU over its QMP socket (boot.sh -M).

    tests/qemu/qmp.py SOCKET COMMAND ARGUMENT
    tests/qemu/qmp.py --self-test      (ctest's qemu_qmp_self_test: against a fake monitor)

COMMAND is device_add or device_del, ARGUMENT its HMP argument ("virtio-net-pci,id=hp0,bus=hp",
"hp0"). They are the only two: the request comes from a line the guest printed on its console
(boot.sh), and other monitor commands reach the host (migrate "exec:...", screendump to a file).
The command runs through QMP's human-monitor-command, so the properties are parsed as on QEMU's
own monitor prompt. Prints "ok" or the monitor's answer; exit 0 when the command was taken, 1 when
QEMU refused it, 2 on a bad request or no answer (the socket gone, 10 s without a reply).
"""
import contextlib
import io
import json
import os
import re
import socket
import sys
import tempfile
import threading

ALLOWED = ("device_add", "device_del")
ARGUMENT = re.compile(r"^[A-Za-z0-9_.,=-]{1,200}$")


def call(stream, command, arguments=None):
    """Sends one QMP command and returns its reply, skipping the events in between."""
    request = {"execute": command}
    if arguments is not None:
        request["arguments"] = arguments
    stream.write(json.dumps(request) + "\n")
    stream.flush()
    while True:
        line = stream.readline()
        if not line:
            raise OSError("QEMU closed the monitor")
        reply = json.loads(line)
        if "return" in reply or "error" in reply:
            return reply


def main(argv):
    if len(argv) != 4 or argv[2] not in ALLOWED or not ARGUMENT.match(argv[3]):
        print("qmp.py: usage: qmp.py SOCKET device_add|device_del ARGUMENT ([A-Za-z0-9_.,=-])")
        return 2
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    try:
        sock.connect(argv[1])
        stream = sock.makefile("rw")
        json.loads(stream.readline())  # the greeting
        reply = call(stream, "qmp_capabilities")
        if "error" in reply:
            print("qmp_capabilities: " + reply["error"].get("desc", ""))
            return 2
        reply = call(stream, "human-monitor-command", {"command-line": argv[2] + " " + argv[3]})
    except (OSError, ValueError) as err:
        print("no answer from QEMU's monitor at %s: %s" % (argv[1], err))
        return 2
    finally:
        sock.close()
    if "error" in reply:
        print(reply["error"].get("desc", "error"))
        return 1
    # HMP prints nothing when device_add or device_del is taken, and the error otherwise.
    text = reply.get("return", "").strip()
    if text:
        print(" ".join(text.split()))
        return 1
    print("ok")
    return 0


def fake_monitor(path, answers, seen):
    """A QMP server on `path` for one connection per answer: the greeting, qmp_capabilities, then
    an event and the next answer to the command, which it records in `seen`."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def serve():
        for answer in answers:
            conn, _ = server.accept()
            stream = conn.makefile("rw")
            stream.write('{"QMP": {"version": {}, "capabilities": []}}\n')
            stream.flush()
            for reply in ({"return": {}}, answer):
                seen.append(json.loads(stream.readline()))
                if reply is answer:
                    stream.write('{"event": "DEVICE_DELETED", "data": {}}\n')
                stream.write(json.dumps(reply) + "\n")
                stream.flush()
            conn.close()
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def self_test():
    """Each answer a request can get, against a fake monitor; the refused requests never connect."""
    failures = []

    def expect(argv, code, text):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            got = main(["qmp.py"] + argv)
        if got != code or text not in out.getvalue():
            failures.append("%s: exit %d, printed %r (expected %d and %r)" % (argv, got, out.getvalue(), code, text))

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "qmp.sock")
        seen = []
        thread = fake_monitor(path, [{"return": ""},
                                     {"return": "Error: 'bogus' is not a valid device model name\r\n"},
                                     {"error": {"class": "GenericError", "desc": "Device 'hp9' not found"}}], seen)
        expect([path, "device_add", "virtio-net-pci,id=hp0,bus=hp"], 0, "ok")
        expect([path, "device_add", "bogus,id=x"], 1, "Error: 'bogus' is not a valid device model name")
        expect([path, "device_del", "hp9"], 1, "Device 'hp9' not found")
        thread.join(5)
        want = {"execute": "human-monitor-command",
                "arguments": {"command-line": "device_add virtio-net-pci,id=hp0,bus=hp"}}
        if len(seen) != 6 or seen[0] != {"execute": "qmp_capabilities"} or seen[1] != want:
            failures.append("the monitor saw %r" % seen)
        # Refused before any connection: another command, a shell's characters, no monitor.
        expect([path, "migrate", "exec:true"], 2, "usage")
        expect([path, "device_add", "x;reboot"], 2, "usage")
        expect([path, "device_add", "id=a b"], 2, "usage")
        expect([os.path.join(tmp, "gone.sock"), "device_del", "hp0"], 2, "no answer from QEMU's monitor")
    for f in failures:
        print("self-test: FAIL " + f)
    if not failures:
        print("self-test: ok, refused and unanswered requests each get their exit code")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv))
