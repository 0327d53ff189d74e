"""`python -m rules [--topic T] [--json]`: list the registered rules with severity, source and summary."""

from __future__ import annotations

import argparse
import json
import sys

from rules.meta import TOPICS, all_rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules", description=__doc__)
    parser.add_argument("--topic", choices=TOPICS, help="only rules of this topic")
    parser.add_argument("--json", action="store_true", help="one JSON object per rule, in a list")
    args = parser.parse_args(argv)
    rules = [r for r in all_rules() if args.topic in (None, r.topic)]
    if args.json:
        json.dump([{"id": r.id, "topic": r.topic, "applies_to": r.applies_to, "severity": r.severity,
                    "source": r.source, "section": r.section, "refs": list(r.refs), "as_of": r.as_of,
                    "summary": r.summary, "condition": repr(r.when), "alternative": r.alternative}
                   for r in rules], sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    for r in rules:
        print(f"{r.id:36} {r.severity:5} {r.topic:12} {r.source:22} {r.summary}")
    print(f"{len(rules)} rules")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
