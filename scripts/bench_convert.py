"""``kvdrill convert`` time for a full-size deck: 2,000 HTML notes (a pack's limit) to a pack.

Writes an Anki "Notes in Plain Text" export of 2,000 notes with bold, italics, lists and tags
to a temporary folder, then times ``convert`` (read, HTML to Markdown, build, parse, write)
over a few runs. Target: median under 5 s on the CI machine.

    .venv/bin/python scripts/bench_convert.py [--notes 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kvdrill.app.services.interop import convert  # noqa: E402


def text_export(notes: int) -> str:
    rows = "".join(
        f"g{n}\t<b>Front</b> number {n} with <i>some</i> text\t"
        f"Back <ul><li>one</li><li>two {n}</li></ul>\ttag{n % 7} deck::sub\n"
        for n in range(notes)
    )
    return "#separator:tab\n#html:true\n#guid column:1\n#tags column:4\n" + rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "deck.txt"
        source.write_text(text_export(args.notes), encoding="utf-8")
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = convert(source, Path(folder) / "deck.md")
            times.append(time.perf_counter() - start)
    print(f"{result.cards} cards: median {statistics.median(times):.2f} s, best {min(times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
