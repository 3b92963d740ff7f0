#!/usr/bin/env python3
"""Finds and applies the breakages listed in scripts/mutants.list (scripts/mutants runs them).

An entry is keyed by its text, not by where the text lives: `find:` is looked up in every file of the tree
(the list itself and the Markdown docs aside), so moving code to another file or folder does not stale it.
Where the text occurs more than once, `in:` narrows the search to one declaration, named by text that occurs
once in the tree (`func openChecked(`, `static func runProcess(`), from there to its closing brace; or to a
file's path (a unit file, a shell script, a test). Tests are searched only when `in:` names one.

    mutant.py check TREE            every entry found exactly once (exit 1 and the stale names otherwise)
    mutant.py apply NAME TREE DEST  the breakage NAME, found in TREE's files, written into the copy DEST
    mutant.py suites NAME           the suites docs/mutants.md says kill NAME, as a `swift test --filter`
                                    pattern (nothing when its row names no suite, or it has no row)
"""
import re
import pathlib
import subprocess
import sys

LIST = pathlib.Path(__file__).with_name("mutants.list")
TABLE = LIST.parent.parent / "docs" / "mutants.md"


def entries():
    """The list's blocks, as dicts of name, find, replace and optionally in."""
    found = []
    for block in LIST.read_text().split("\n\n"):
        entry = {}
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            key, _, value = line.partition(": ")
            entry[key] = value
        if "name" in entry:
            found.append(entry)
    return found


def tree_files(tree):
    """The files a mutant may break: the tree's tracked and new files, but the list, this script and the docs.
    Tests are searched only when an entry names one (`in:`): a test often repeats the line it checks."""
    listed = subprocess.run(["git", "-C", str(tree), "ls-files", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    texts = {}
    for path in listed:
        if path in ("scripts/mutants.list", "scripts/mutant.py") or path.endswith(".md"):
            continue
        try:
            texts[path] = (tree / path).read_text()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            pass
    return texts


def closing_brace(text, start):
    """The end of the block whose first `{` follows `start`."""
    opened = text.find("{", start)
    if opened < 0:
        return len(text)
    depth = 0
    for index in range(opened, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def locate(entry, texts):
    """(path, offset) of the entry's text, or an error in words."""
    find, scope = entry["find"], entry.get("in")
    regions = [(path, 0, len(text)) for path, text in texts.items() if not path.startswith("Tests/")]
    if scope:
        if scope in texts:
            regions = [(scope, 0, len(texts[scope]))]
        else:
            hits = [(path, text.find(scope)) for path, text in texts.items() if scope in text and not path.startswith("Tests/")]
            count = sum(texts[path].count(scope) for path, _ in hits)
            if count != 1:
                return f"in: {scope!r} occurs {count} times in the tree"
            path, at = hits[0]
            regions = [(path, at, closing_brace(texts[path], at))]
    matches = []
    for path, start, end in regions:
        region = texts[path][start:end]
        at = region.find(find)
        while at >= 0:
            matches.append((path, start + at))
            at = region.find(find, at + 1)
    if len(matches) != 1:
        where = f" within {scope!r}" if scope else ""
        return f"find: occurs {len(matches)} times{where}: " + ", ".join(sorted({p for p, _ in matches}))
    return matches[0]


def killing_suites(name):
    """The `…Tests` names in the third column of the docs table's row that names the mutant, in order."""
    for line in TABLE.read_text().splitlines():
        cells = line.split(" | ")
        if len(cells) >= 3 and f"`{name}`" in cells[0]:
            return list(dict.fromkeys(re.findall(r"`(\w+Tests)`", cells[2])))
    return []


def main(argv):
    if len(argv) == 3 and argv[1] == "check":
        texts = tree_files(pathlib.Path(argv[2]))
        stale = [(e["name"], where) for e in entries() if isinstance(where := locate(e, texts), str)]
        for name, why in stale:
            print(f"{name}: STALE ({why})")
        print(f"mutants: {len(entries()) - len(stale)} found once, {len(stale)} stale")
        return 1 if stale else 0
    if len(argv) == 5 and argv[1] == "apply":
        name, tree, dest = argv[2], pathlib.Path(argv[3]), pathlib.Path(argv[4])
        entry = next((e for e in entries() if e["name"] == name), None)
        if entry is None:
            print(f"{name}: not in {LIST}", file=sys.stderr)
            return 2
        texts = tree_files(tree)
        where = locate(entry, texts)
        if isinstance(where, str):
            print(where)
            return 1
        path, at = where
        text = texts[path]
        (dest / path).write_text(text[:at] + entry["replace"] + text[at + len(entry["find"]):])
        print(path)
        return 0
    if len(argv) == 3 and argv[1] == "suites":
        print("|".join(killing_suites(argv[2])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
