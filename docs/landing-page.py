#!/usr/bin/env python3
"""Writes the site's landing page (/documentation/): what Sluice is and the articles to start with,
above the cards of its modules.

`docc merge` synthesises that page with the modules' cards only, and takes no content for it, so
docs/build rewrites the page's data (SITE/data/documentation.json) after the merge: an abstract, a
paragraph, and a first topic section "Start here" whose cards are the articles' own (their titles
and abstracts, read from the articles' pages in the site).

    docs/landing-page.py SITE
"""
import json
import sys

site = sys.argv[1]
page_path = f"{site}/data/documentation.json"
page = json.load(open(page_path, encoding="utf-8"))

ABSTRACT = ("Apple's Combine, complete and fast, for Linux and every other platform Swift runs on, "
            "plus the tools to write and test your own publishers.")
# The paragraph below the abstract: text, and code in backquotes.
OVERVIEW = ("Change `import Combine` to `import Sluice` and code written for Apple's Combine compiles and "
            "behaves the same: the same names, signatures, demand, ordering of events and descriptions, "
            "in Swift 6 language mode, with no dependencies beyond the standard library, Foundation and "
            "Dispatch. Start with one of these articles, or open a module below.")
# The articles to start with: (module, article), in reading order.
START = [("SluiceCore", "GettingStarted"), ("SluiceCore", "Migrating"),
         ("Sluice", "UsingCombineLibrariesOffApplesSystems"), ("SluiceFeed", "SluiceOnAServer")]


def text(string):
    return [{"type": "text", "text": string}]


def inline(string):
    """Text with `code` spans, as DocC's inline content."""
    parts = string.split("`")
    return [{"type": "codeVoice", "code": part} if index % 2 else {"type": "text", "text": part}
            for index, part in enumerate(parts) if part]


references = page.setdefault("references", {})
start_ids = []
for module, article in START:
    data = json.load(open(f"{site}/data/documentation/{module.lower()}/{article.lower()}.json", encoding="utf-8"))
    identifier = data["identifier"]["url"]
    references[identifier] = {
        "type": "topic",
        "kind": "article",
        "role": "article",
        "identifier": identifier,
        "title": data["metadata"]["title"],
        "url": f"/documentation/{module.lower()}/{article.lower()}",
        "abstract": data.get("abstract", []),
    }
    start_ids.append(identifier)

modules = [identifier for section in page.get("topicSections", []) for identifier in section["identifiers"]]
page["abstract"] = text(ABSTRACT)
page["primaryContentSections"] = [{
    "kind": "content",
    "content": [{"type": "paragraph", "inlineContent": inline(OVERVIEW)}],
}]
page["topicSections"] = [
    {"title": "Start here", "identifiers": start_ids},
    {"title": "Modules", "identifiers": modules},
]
json.dump(page, open(page_path, "w", encoding="utf-8"), ensure_ascii=False)
print(f"docs/landing-page.py: {page_path}: the abstract, and {len(start_ids)} articles above {len(modules)} modules")
