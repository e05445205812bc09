#!/usr/bin/env python3
"""docs/check's checks of the operator diagrams and the timeline on the built site.

    docs/check-images.py plan SITE INDEX_JSON > PLAN_JSON
        The pages to open in the browser, each with the diagrams it must show (docs/marbles/
        index.json says which): every family page, the first operator page of each family,
        and the article "Seeing a pipeline". Also checks, without a browser, that the page of
        every operator the index names (every overload) refers to its diagram.
    docs/check-images.py verify PLAN_JSON PROBE_DOM
        Reads what docs/check-images.html found in the browser (its #probe-result in the dumped
        DOM) and checks each page: rendered, every expected diagram loaded (natural width > 0)
        with a text alternative, the expected links present, no script error.
    docs/check-images.py timeline TIMELINE_DOM TRACE_JSON CHROMIUM_LOG
        Checks the exported timeline page as the browser rendered it: a lane for each subscription
        of the recording (the Chrome Trace JSON beside it: one thread name per lane), among them
        each stage of the article's pipeline, and no script error in the browser's console.

Exits 1 and says what is wrong when a check fails.
"""
import glob
import html
import json
import os
import re
import sys

ARTICLE = "/documentation/sluicetesting/seeingapipeline"
TIMELINE = "/timelines/search-box.html"
# The stages of the article's pipeline (query → debounce → removeDuplicates → flatMap → receive(on:)
# → sink, and flatMap's lookups), as the timeline names the publishers.
STAGES = ["PassthroughSubject", "Debounce", "RemoveDuplicates", "FlatMap", "ReceiveOn", "Delay", "Just"]


def fail(problems):
    for problem in problems:
        print("  ✗ " + problem, file=sys.stderr)
    sys.exit(1 if problems else 0)


def pages_of(site, operator):
    """The site's pages of `operator` (a DocC path in SluiceCore): every overload, as site paths."""
    base = os.path.join(site, "data/documentation/sluicecore", operator.lower())
    files = [f for f in glob.glob(glob.escape(base) + "*.json")
             if f == base + ".json" or re.fullmatch(re.escape(base) + r"-[0-9a-z]{4,6}\.json", f)]
    return sorted("/" + os.path.relpath(f, site)[len("data/"):-len(".json")] for f in files)


def plan(site, index_path):
    index = json.load(open(index_path, encoding="utf-8"))
    problems, pages = [], []
    families, opened = [], set()
    for entry in index:
        if not entry["operators"]:
            continue
        if entry["family"] not in families:
            families.append(entry["family"])
        for operator in entry["operators"]:
            found = pages_of(site, operator)
            if not found:
                problems.append(f"no page for {operator} on the site")
            for path in found:
                data = open(os.path.join(site, "data" + path + ".json"), encoding="utf-8").read()
                if f'{entry["name"]}.svg' not in data:
                    problems.append(f"{path} does not show {entry['name']}.svg")
        first = pages_of(site, entry["operators"][0])
        if first and entry["family"] not in opened:  # in the browser: one operator page per family
            opened.add(entry["family"])
            pages.append({"path": first[0], "images": [entry["name"]], "links": []})
    for family in families:
        names = [e["name"] for e in index if e["family"] == family and e["operators"]]
        page = re.sub(r"[^a-z0-9]", "", family.lower()) + "operators"
        pages.append({"path": f"/documentation/sluicecore/{page}", "images": names, "links": []})
    pipelines = [e["name"] for e in index if not e["operators"]]
    pages.append({"path": ARTICLE, "images": pipelines, "links": [TIMELINE]})
    if problems:
        fail(problems)
    json.dump(pages, sys.stdout)
    print(f"  {sum(len(pages_of(site, o)) for e in index for o in e['operators'])} operator pages refer to "
          f"their diagrams; {len(pages)} pages to open", file=sys.stderr)


def probe_result(dom_path):
    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    if not match or match.group(1).strip() == "pending":
        fail(["the probe page wrote no result (did its script run?)"])
    return json.loads(html.unescape(match.group(1)))


def verify(plan_path, dom_path):
    planned = json.load(open(plan_path, encoding="utf-8"))
    found = {page["path"]: page for page in probe_result(dom_path)}
    problems, images = [], 0
    for page in planned:
        seen = found.get(page["path"])
        if seen is None:
            problems.append(f"{page['path']}: not opened")
            continue
        if not seen["title"] or "can't be found" in seen["title"].lower():
            problems.append(f"{page['path']}: did not render (title {seen['title']!r})")
        for name in page["images"]:
            matches = [i for i in seen["images"] if i["src"].split("?")[0].endswith("/" + name + ".svg")]
            if not matches:
                problems.append(f"{page['path']}: no image {name}.svg in the page (missing, or not rendered)")
            elif not any(i["naturalWidth"] > 0 for i in matches):
                problems.append(f"{page['path']}: image {name}.svg did not load ({matches[0]['src']})")
            elif not all(i["alt"].strip() for i in matches):
                problems.append(f"{page['path']}: image {name}.svg has no text alternative")
            else:
                images += 1
        for link in page["links"]:
            if not any(href.split("#")[0].endswith(link) for href in seen["links"]):
                problems.append(f"{page['path']}: no link to {link}")
        for error in seen["errors"]:
            problems.append(f"{page['path']}: script error {error!r}")
    print(f"  {len(planned)} pages opened, {images} diagrams loaded with their text alternatives")
    fail(problems)


def timeline(dom_path, trace_path, log_path):
    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    trace = json.load(open(trace_path, encoding="utf-8"))
    lanes = [e["args"]["name"] for e in trace["traceEvents"] if e.get("ph") == "M" and e.get("name") == "thread_name"]
    problems = []
    if not lanes:
        problems.append("the trace has no lanes")
    drawn = html.unescape(dom)
    for lane in lanes:
        if lane not in drawn:
            problems.append(f"the page draws no lane {lane!r}")
    publishers = {lane.split(" ← ")[-1] for lane in lanes}
    for stage in STAGES:
        if stage not in publishers:
            problems.append(f"no lane for the pipeline's stage {stage} (lanes: {lanes})")
    status = re.search(r'id="status"[^>]*>([^<]*)<', dom)
    if not status or f"in {len(lanes)} lanes" not in status.group(1):
        problems.append(f"the page's status line does not say it drew {len(lanes)} lanes: "
                        f"{status.group(1) if status else 'no status line'!r}")
    log = open(log_path, encoding="utf-8", errors="replace").read()
    errors = [line for line in log.splitlines() if "CONSOLE" in line and re.search(r"Uncaught|Error", line)]
    problems += [f"script error: {line.strip()}" for line in errors]
    print(f"  {len(lanes)} lanes drawn, stages {', '.join(STAGES)} among them; "
          f"{len(errors)} script errors in the console")
    fail(problems)


command = sys.argv[1]
if command == "plan":
    plan(*sys.argv[2:])
elif command == "verify":
    verify(*sys.argv[2:])
elif command == "timeline":
    timeline(*sys.argv[2:])
else:
    sys.exit(f"docs/check-images.py: unknown command {command}")
