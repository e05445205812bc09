#!/usr/bin/env python3
"""Puts the operator diagrams of docs/marbles/ on the documentation site: into a staged copy of
SluiceCore's catalog, a page extension per operator that has a diagram (every overload of it) and
an article per family that shows its diagrams side by side, under an article that lists them,
itself listed on the module's page.

docs/marbles/index.json (written by MarbleSVGTests from its table) says which diagram belongs to
which family and to which operators, as DocC paths without disambiguation (`Publisher/map(_:)`);
the pages' real paths, hashes of overloads included, come from the digest of a first conversion
(linkable-entities.json). The alternative text of each image is the diagram's own title and
description (its marble strings), read from the SVG.

    docs/marble-pages.py MARBLES_DIR LINKABLE_ENTITIES_JSON CATALOG_DIR
"""
import html
import json
import os
import re
import sys

marbles, entities_path, catalog = sys.argv[1:]
index = json.load(open(os.path.join(marbles, "index.json"), encoding="utf-8"))
entities = json.load(open(entities_path, encoding="utf-8"))
PREFIX = "doc://sluice.SluiceCore/documentation/SluiceCore/"

# Every page, by its path without an overload's hash: "Publisher/map(_:)" → [".../map(_:)-24d1d", …].
pages = {}
for entity in entities:
    url = entity.get("referenceURL", "")
    if not url.startswith(PREFIX):
        continue
    path = url[len(PREFIX):]
    pages.setdefault(re.sub(r"-[0-9a-z]{4,6}$", "", path), []).append(path)


def alternative(name):
    """The diagram's title and description: what a screen reader says for the image."""
    svg = open(os.path.join(marbles, name + ".svg"), encoding="utf-8").read()
    title = html.unescape(re.search(r"<title[^>]*>(.*?)</title>", svg, re.S).group(1))
    desc = html.unescape(re.search(r"<desc[^>]*>(.*?)</desc>", svg, re.S).group(1))
    return f"Marble diagram of {title}. {desc}".replace("[", "(").replace("]", ")")


def article_name(family):
    return re.sub(r"[^A-Za-z0-9]", "", family) + "Operators"


out = os.path.join(catalog, "OperatorDiagrams")
os.makedirs(out, exist_ok=True)
families = []
per_page = {}
missing = []
for entry in index:
    if not entry["operators"]:
        continue  # a whole pipeline, drawn for an article
    if entry["family"] not in families:
        families.append(entry["family"])
    for operator in entry["operators"]:
        found = pages.get(operator)
        if not found:
            missing.append(operator)
        for path in found or []:
            per_page.setdefault(path, []).append(entry)
if missing:
    sys.exit(f"docs/marble-pages.py: no page for {', '.join(missing)} (docs/marbles/index.json)")

# A page extension per operator page: its diagrams, after its own discussion.
for path, entries in per_page.items():
    # (An extension file's content is appended to the symbol's documentation by default.)
    lines = [f"# ``SluiceCore/{path}``", "", "### Marble diagram", ""]
    for entry in entries:
        lines += [f"![{alternative(entry['name'])}]({entry['name']}.svg)", ""]
    family = entries[0]["family"]
    lines += [f"Drawn from a run of the operator on a `TestScheduler` (time runs left to right, a frame "
              f"is 100 ms). More in <doc:{article_name(family)}>.", ""]
    # One file per page: each character that is not a letter or digit spelled out, so that no two
    # paths (`collect()`, `collect(_:)`) share a file name.
    file = re.sub(r"[^A-Za-z0-9]", lambda m: f"_{ord(m.group()):02x}", path) + ".md"
    open(os.path.join(out, file), "w", encoding="utf-8").write("\n".join(lines))


def link(operator):
    # An overloaded name links to its first overload (the paths are sorted, so the pick is stable).
    return f"``{sorted(pages[operator])[0]}``"


# An article per family: its diagrams one under another, each with the operators it shows.
for family in families:
    lines = [f"# {family} operators, drawn", "",
             f"Marble diagrams of the {family.lower()} operators, each drawn from a run of the real operator.", "",
             "## Overview", "",
             "Each source below is a marble diagram played on a `TestScheduler`, one frame per 100 ms of "
             "virtual time; each output row is what the operator did with it, recorded frame by frame. A "
             "circle is a value, a bar the end, a cross a failure; a Greek letter stands for a longer value "
             "(see the legend under the rows). The diagrams are checked against fresh runs in CI.", ""]
    for entry in index:
        if entry["family"] != family or not entry["operators"]:
            continue
        lines += [f"### {entry['name']}", "",
                  f"![{alternative(entry['name'])}]({entry['name']}.svg)", "",
                  "Shown on " + ", ".join(link(o) for o in entry["operators"]) + ".", ""]
    open(os.path.join(out, article_name(family) + ".md"), "w", encoding="utf-8").write("\n".join(lines))

# The article that lists the families.
lines = ["# Operator diagrams", "",
         "What each operator does over time, as marble diagrams drawn from runs of Sluice's operators.", "",
         "## Overview", "",
         "One page per family of operators, their diagrams side by side. The same diagrams are on the "
         "operators' own pages. They are drawn by `MarbleSVGTests` from the real operators under a "
         "`TestScheduler`, never by hand: when an operator's behaviour changes, so does its picture.", "",
         "## Topics", "", "### Families", ""]
lines += [f"- <doc:{article_name(family)}>" for family in families]
open(os.path.join(out, "OperatorDiagrams.md"), "w", encoding="utf-8").write("\n".join(lines) + "\n")
# Curated from the module's page (the staged copy), so that the family pages sit under it only.
root = os.path.join(catalog, "SluiceCore.md")
with open(root, "a", encoding="utf-8") as page:
    page.write("\n### Operator diagrams\n\n- <doc:OperatorDiagrams>\n")
print(f"   operator diagrams: {len(per_page)} operator pages, {len(families)} family pages")
