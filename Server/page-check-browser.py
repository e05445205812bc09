#!/usr/bin/env python3
"""Drives the live example's page in headless Chromium through the DevTools protocol.

    page-check-browser.py CHROMIUM URL_OF_A URL_OF_B

1. Opens A's page in headless Chromium and waits until its #status says "connected" (its stream
   is the topic `lobby`).
2. Connects a WebSocket client to B's /ws/lobby.
3. POSTs a unique text to B's /events/lobby: A's page must show it as an <li> of #events (it went
   through PostgreSQL to A, then to the browser over SSE), and B's WebSocket client must get it.
4. Types a second unique text into A's form and submits it: B's WebSocket client must get it.
5. Reads A's GET /metrics: its feeds' clients and deliveries, and its listener connected.
6. Opens A's page following eight topics (`/?topic=lobby&topic=room1…`, one EventSource on
   `/events?topic=…`), POSTs an event to each on B: the page must show each under its topic, and
   still fetch its own origin.

Each wait polls with a generous limit (30 s), never a fixed sleep. Exits 0 when all holds, 1 with
what failed. Standard library only: the WebSocket client (for the DevTools protocol and for /ws)
is the small one below.
"""
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

LIMIT = 30.0


class Failure(Exception):
    pass


class WebSocket:
    """A minimal WebSocket client (RFC 6455): text messages, pings answered, no extensions."""

    def __init__(self, url, timeout=LIMIT):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        path = parts.path + ("?" + parts.query if parts.query else "")
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise Failure(f"{url}: the connection closed during the WebSocket handshake")
            head += chunk
        head, self.pending = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise Failure(f"{url}: no WebSocket upgrade: {head.decode(errors='replace').splitlines()[0]}")

    def _read(self, count):
        while len(self.pending) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Failure("the WebSocket connection closed")
            self.pending += chunk
        data, self.pending = self.pending[:count], self.pending[count:]
        return data

    def _send_frame(self, opcode, payload):
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def receive(self, deadline):
        """The next text message, or None when the deadline passes first."""
        message = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                first, second = self._read(2)
                length = second & 0x7F
                if length == 126:
                    (length,) = struct.unpack("!H", self._read(2))
                elif length == 127:
                    (length,) = struct.unpack("!Q", self._read(8))
                mask = self._read(4) if second & 0x80 else None
                payload = self._read(length)
            except socket.timeout:
                return None
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            opcode = first & 0x0F
            if opcode == 0x9:
                self._send_frame(0xA, payload)
            elif opcode == 0x8:
                raise Failure(f"the server closed the WebSocket: {payload[2:].decode(errors='replace')}")
            elif opcode in (0x0, 0x1, 0x2):
                message += payload
                if first & 0x80:
                    return message.decode()

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


class DevTools:
    """One page target of Chromium, driven with Runtime.evaluate."""

    def __init__(self, url):
        self.socket = WebSocket(url)
        self.next_id = 0

    def evaluate(self, expression):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": "Runtime.evaluate",
                                     "params": {"expression": expression, "returnByValue": True}}))
        deadline = time.monotonic() + LIMIT
        while True:
            message = self.socket.receive(deadline)
            if message is None:
                raise Failure(f"Chromium did not answer within {LIMIT:.0f} s")
            reply = json.loads(message)
            if reply.get("id") == self.next_id:
                result = reply.get("result", {})
                if "exceptionDetails" in result:
                    raise Failure(f"the page threw: {result['exceptionDetails']}")
                return result.get("result", {}).get("value")

    def wait_for(self, expression, what):
        """Polls `expression` until it is true (a page still loading, where it throws, is not yet)."""
        guarded = f"(() => {{ try {{ return !!({expression}); }} catch (error) {{ return false; }} }})()"
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline:
            if self.evaluate(guarded):
                return
            time.sleep(0.1)
        raise Failure(f"{what}: not within {LIMIT:.0f} s")


def start_chromium(browser, url, profile, log):
    process = subprocess.Popen(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--no-default-browser-check", f"--user-data-dir={profile}", "--remote-debugging-port=0", url],
        stdout=log, stderr=log)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Failure(f"Chromium exited with {process.returncode}")
        try:
            with open(port_file) as file:
                port = int(file.readline())
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5))
            pages = [t for t in targets if t.get("type") == "page" and t.get("url", "").startswith(url)]
            if pages:
                return process, pages[0]["webSocketDebuggerUrl"]
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise Failure(f"Chromium did not open {url} within {LIMIT:.0f} s")


def wait_for_message(socket, text, what):
    deadline = time.monotonic() + LIMIT
    while True:
        message = socket.receive(deadline)
        if message is None:
            raise Failure(f"{what}: not within {LIMIT:.0f} s")
        if json.loads(message).get("data") == text:
            return


def metric(text, name):
    """The value of the sample `name` (with its labels) in Prometheus's text format, or None."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


def main():
    browser, url_a, url_b = sys.argv[1:4]
    unique = f"{os.getpid()}-{time.time_ns()}"
    first, second = f"posted to B {unique}", f"from the page on A {unique}"
    profile = tempfile.mkdtemp(prefix="sluice-page-check.")
    log = open(os.path.join(tempfile.gettempdir(), "sluice-page-check-chromium.log"), "w")
    chromium = None
    try:
        chromium, target = start_chromium(browser, url_a, profile, log)
        page = DevTools(target)
        page.wait_for("document.getElementById('status').textContent === 'connected'",
                      "A's page did not say connected")
        print(f"page-check: A's page ({url_a}) is connected")
        socket_b = WebSocket(url_b.replace("http://", "ws://") + "ws/lobby")

        request = urllib.request.Request(url_b + "events/lobby", data=first.encode(), method="POST")
        status = urllib.request.urlopen(request, timeout=LIMIT).status
        if status != 202:
            raise Failure(f"POST {url_b}events/lobby answered {status}, not 202")
        shows = ("Array.from(document.querySelectorAll('#events li')).some(li => li.textContent === "
                 + json.dumps(first) + ")")
        page.wait_for(shows, f"A's page did not show the event posted to B ({first!r})")
        print(f"page-check: A's page shows the event posted to B: {first!r}")
        wait_for_message(socket_b, first, "B's WebSocket client did not get the event posted to B")
        print("page-check: B's WebSocket client got it too")

        page.evaluate("document.getElementById('text').value = " + json.dumps(second)
                      + "; document.getElementById('post').requestSubmit(); true")
        wait_for_message(socket_b, second, "B's WebSocket client did not get the event posted from A's page")
        print(f"page-check: B's WebSocket client got the event posted from A's page's form: {second!r}")
        socket_b.close()

        # A's metrics count what its clients got: the page's stream, the two events (the second
        # reaches A through the log: wait for it).
        deadline = time.monotonic() + LIMIT
        while True:
            metrics = urllib.request.urlopen(url_a + "metrics", timeout=LIMIT).read().decode()
            delivered = metric(metrics, 'sluice_feed_events_delivered_total{feed="feed"}')
            clients = metric(metrics, 'sluice_feed_clients{feed="feed"}')
            connected = metric(metrics, "sluice_log_listener_connected")
            if delivered is not None and delivered >= 2 and clients is not None and clients >= 1 and connected == 1:
                break
            if time.monotonic() > deadline:
                raise Failure(f"A's /metrics does not show its feed's clients and deliveries and a connected listener:\n{metrics}")
            time.sleep(0.2)
        print(f"page-check: A's /metrics: {clients:g} clients, {delivered:g} events delivered, listener connected")

        # The same page following eight topics on one connection (six is all HTTP/1.1 gives an
        # origin): an event posted to each on B shows on A's page under its topic, and the page
        # can still fetch its own origin.
        topics = ["lobby"] + [f"room{n}-{unique}" for n in range(1, 8)]
        address = url_a + "?" + "&".join("topic=" + urllib.parse.quote(topic) for topic in topics)
        page.evaluate("location.href = " + json.dumps(address) + "; true")
        page.wait_for("location.search.includes('topic=') && document.getElementById('status').textContent === 'connected'",
                      "A's page of eight topics did not say connected")
        texts = {}
        for topic in topics:
            texts[topic] = f"to {topic} {unique}"
            request = urllib.request.Request(url_b + "events/" + urllib.parse.quote(topic), data=texts[topic].encode(), method="POST")
            status = urllib.request.urlopen(request, timeout=LIMIT).status
            if status != 202:
                raise Failure(f"POST {url_b}events/{topic} answered {status}, not 202")
        every = " && ".join(
            "Array.from(document.querySelectorAll('#events li')).some(li => li.dataset.topic === " + json.dumps(topic)
            + " && li.textContent === " + json.dumps(topic + ": " + texts[topic]) + ")" for topic in topics)
        page.wait_for(every, "A's page did not show an event of every one of its eight topics")
        page.evaluate("window.fetched = null; fetch('/ready').then(r => { window.fetched = r.status; }); true")
        page.wait_for("window.fetched === 200", "A's page of eight topics could not fetch its own origin")
        print(f"page-check: A's page follows {len(topics)} topics on one connection and shows each topic's event")
        return 0
    except Failure as failure:
        print(f"page-check: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if chromium is not None:
            chromium.terminate()
            try:
                chromium.wait(timeout=10)
            except subprocess.TimeoutExpired:
                chromium.kill()
        subprocess.run(["rm", "-rf", profile])


if __name__ == "__main__":
    sys.exit(main())
