#!/usr/bin/env python3
"""bench/nchan's companion: GET /stats and POST /bench/start for nginx + Nchan, as sluice-feed
answers them (Server/README.md, "The benchmark server").

- /bench/start?count=C&rate=R[&size=S]: publishes C events at R per second to Nchan's /pub, from a
  thread that sleeps until each event's due time (start + seq / R) on CLOCK_MONOTONIC; each event's
  data is "<seq> <CLOCK_MONOTONIC ns at emission>", with a second line of filler up to S bytes. 409
  while a run is under way. With --topics T, event seq goes to Nchan's /pub/t<k>, k =
  topic_of_event(seq, T) (the same draw as sluice-feed's and sluice-fanout-load's), else to /pub.
- /stats: {"engine": "nchan", "clients": subscribers (nchan_stub_status), "published",
  "cpuSeconds": user + system time of nginx's master and workers, "rssBytes": the sum of their
  proportional set sizes (shared pages counted once)}.
Standard library only.
"""
import http.client
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
PORT, NGINX_PORT, NGINX_PID = int(args["--port"]), int(args["--nginx-port"]), int(args["--nginx-pid"])
TOPICS = int(args.get("--topics", "0"))
TICKS = os.sysconf("SC_CLK_TCK")
state = {"running": False, "published": 0}
lock = threading.Lock()


def nginx_pids():
    pids = [NGINX_PID]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == NGINX_PID:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])   # utime, stime
        except OSError:
            pass
    return total / TICKS


def pss_bytes(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def subscribers():
    connection = http.client.HTTPConnection("127.0.0.1", NGINX_PORT, timeout=10)
    connection.request("GET", "/status")
    text = connection.getresponse().read().decode()
    connection.close()
    for line in text.splitlines():
        if line.startswith("subscribers:"):
            return int(line.split(":")[1])
    return 0


def topic_of_event(seq, topics):
    """The topic (0..<topics) of event seq: SplitMix64 of seq, modulo topics."""
    mask = (1 << 64) - 1
    z = (seq + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return (z ^ (z >> 31)) % topics


def publish(count, rate, size):
    connection = http.client.HTTPConnection("127.0.0.1", NGINX_PORT, timeout=30)
    filler = "x" * size
    start = time.monotonic_ns()
    period = 1_000_000_000 / rate
    for seq in range(count):
        due = start + int(seq * period)
        while (now := time.monotonic_ns()) < due:
            time.sleep((due - now) / 1e9)
        stamp = f"{seq} {time.monotonic_ns()}"
        padding = size - len(stamp) - 1
        body = (stamp + "\n" + filler[:padding]) if padding > 0 else stamp
        path = f"/pub/t{topic_of_event(seq, TOPICS)}" if TOPICS else "/pub"
        connection.request("POST", path, body=body.encode(), headers={"Content-Type": "text/plain"})
        connection.getresponse().read()
        with lock:
            state["published"] += 1
    connection.close()
    with lock:
        state["running"] = False


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def answer(self, status, body=b"", kind="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/stats":
            return self.answer(404)
        pids = nginx_pids()
        with lock:
            published = state["published"]
        stats = {"engine": "nchan", "instance": "nchan", "clients": subscribers(), "published": published,
                 "delivered": 0, "dropped": 0, "disconnected": 0, "cpuSeconds": cpu_seconds(pids), "rssBytes": pss_bytes(pids)}
        self.answer(200, json.dumps(stats).encode(), "application/json")

    def do_POST(self):
        url = urllib.parse.urlparse(self.path)
        if url.path != "/bench/start":
            return self.answer(404)
        query = urllib.parse.parse_qs(url.query)
        try:
            count, rate = int(query["count"][0]), float(query["rate"][0])
            size = int(query.get("size", ["0"])[0])
        except (KeyError, ValueError):
            return self.answer(400, b"POST /bench/start?count=C&rate=R[&size=S]\n")
        with lock:
            if state["running"]:
                return self.answer(409, b"a benchmark run is already under way\n")
            state["running"] = True
        threading.Thread(target=publish, args=(count, rate, size), daemon=True).start()
        self.answer(202)


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
