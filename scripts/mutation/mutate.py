"""Reads scripts/mutation/mutants.txt and applies one mutant to a source
tree, for scripts/mutation-check.sh.

  mutate.py count LIST            the number of mutants
  mutate.py name LIST I           the name of mutant I
  mutate.py file LIST I           the file it changes
  mutate.py tests LIST I          the test binary that must kill it
                                  (ScanExecutionTests unless it says)
  mutate.py apply LIST I ROOT     applies it (exit 1 unless every find
                                  occurs exactly once; whitespace in a
                                  find matches any whitespace)
"""

import re
import sys


def parse(path):
    mutants = []
    current = None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith("#"):
            continue
        if not line.strip():
            current = None
            continue
        key, _, value = line.partition(": ")
        value = value.replace("\\n", "\n")
        if key == "mutant":
            current = {"name": value, "file": None, "edits": [],
                       "tests": "ScanExecutionTests"}
            mutants.append(current)
        elif current is None:
            sys.exit(f"{path}: '{line}' is outside a mutant")
        elif key in ("file", "tests"):
            current[key] = value
        elif key == "find":
            current["edits"].append([value, None])
        elif key == "replace" and current["edits"]:
            current["edits"][-1][1] = value
        else:
            sys.exit(f"{path}: unexpected line '{line}'")
    for mutant in mutants:
        if not mutant["file"] or not mutant["edits"] or any(
                r is None for _, r in mutant["edits"]):
            sys.exit(f"{path}: mutant '{mutant['name']}' is incomplete")
    return mutants


def main(argv):
    command, path = argv[1], argv[2]
    mutants = parse(path)
    if command == "count":
        print(len(mutants))
        return 0
    mutant = mutants[int(argv[3])]
    if command in ("name", "file", "tests"):
        print(mutant[command])
        return 0
    target = f"{argv[4]}/{mutant['file']}"
    text = open(target, encoding="utf-8").read()
    for find, replace in mutant["edits"]:
        # Any run of whitespace in `find` matches any other, so that
        # reformatting the source does not invalidate the list.
        pattern = re.compile(r"\s+".join(map(re.escape, find.split())))
        found = pattern.findall(text)
        if len(found) != 1:
            print(f"'{find}' occurs {len(found)} times in {target}",
                  file=sys.stderr)
            return 1
        text = pattern.sub(lambda _: replace, text)
    open(target, "w", encoding="utf-8").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
