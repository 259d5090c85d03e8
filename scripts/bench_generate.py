"""Speed of the problem generator and the answer checker together.

For every problem template of the bundled pack decks/problems.md (or the packs given), draws
variants with ``make_variant`` and checks each with ``check_answer`` against a correct typed
answer string, round-robin over the templates with fresh seeds. Prints the first-use time (parse,
compile, lambdify), then variants generated and checked per second (target >= 2,000/s), per
template and overall.

    .venv/bin/python scripts/bench_generate.py [--seconds S] [PACK ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_PER_SECOND = 2000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("packs", nargs="*", type=Path, default=[ROOT / "decks" / "problems.md"])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()

    start = time.perf_counter()
    from kvdrill.app.services.pack_files import parse_paths
    from kvdrill.engine.capacity.units import format_quantity
    from kvdrill.engine.problems.checker import check_answer
    from kvdrill.engine.problems.generator import make_variant

    packs, problems = parse_paths(args.packs)
    if problems:
        for problem in problems:
            print(problem)
        return 1
    templates = [
        (f"{pack.meta.pack}/{card.key}", card.problem)
        for pack in packs
        for card in pack.cards
        if card.kind == "problem" and card.problem is not None
    ]
    if not templates:
        print("no problem templates found")
        return 1
    for template_id, template in templates:
        make_variant(template, template_id, 0)
    print(f"first use (imports, parse, compile): {time.perf_counter() - start:.2f} s")

    def run(chosen: list[tuple[str, dict]], seconds: float) -> tuple[int, float, int]:
        done = wrong = 0
        seed = 1
        began = time.perf_counter()
        while (elapsed := time.perf_counter() - began) < seconds:
            for template_id, template in chosen:
                variant = make_variant(template, template_id, seed)
                typed = format_quantity(variant.expected_value, variant.unit, 6)
                if not check_answer(variant, typed, 20.0).correct:
                    wrong += 1
                done += 1
            seed += 1
        return done, elapsed, wrong

    per_template = args.seconds / max(1, len(templates))
    for template_id, template in templates:
        done, elapsed, wrong = run([(template_id, template)], per_template)
        note = f", {wrong} correct answers refused" if wrong else ""
        print(f"  {template_id:<45} {done / elapsed:>8,.0f} variants/s{note}")
    done, elapsed, wrong = run(templates, args.seconds)
    rate = done / elapsed
    verdict = "meets" if rate >= TARGET_PER_SECOND else "below"
    print(
        f"all templates: {done:,} variants generated and checked in {elapsed:.2f} s = "
        f"{rate:,.0f}/s ({verdict} the {TARGET_PER_SECOND:,}/s target)"
    )
    if wrong:
        print(f"{wrong} correct answers were refused: a bug in the generator or the checker")
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())
