"""How long parsing packs takes: one pack of the maximum size, and the packs `kvdrill import`
reads in scripts/bench_vs_anki.py, in a new process.

Usage: python scripts/bench_pack_parser.py [--cards N] [--repeat R] [--rounds K]
                                           [--against CHECKOUT]

Two figures, each measured in a new Python process (so both sides pay the same start-up):
- ``parse_pack`` of one generated pack of N cards (recall cards with lists, claims and
  follow-ups, multiple-choice cards with related links): the best of R parses in the process;
- the 10,000 recall cards of scripts/bench_vs_anki.py's import row (5 packs of 2,000), parsed
  once as `kvdrill import` parses them (``check_files``): the time from the first import of the
  parser to the last pack parsed, and the whole process's wall time.
Each is the median of K rounds. With ``--against`` (another kvdrill checkout, say
``git worktree add /tmp/old main``), the same figures for that checkout too, the two
alternating (A B A B) in one run, and the ratio this/other.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from bench_table import importable  # noqa: E402
from bench_vs_anki import write_packs  # noqa: E402

FRONT_MATTER = "---\npack: bench\ntitle: Benchmark\nversion: 1\nlessons: [5, 7]\n---\n\n"


def recall_card(n: int) -> str:
    return f"""## Card {n}: KV bytes per token {{#card-{n}}} priority #kv-cache #t{n % 7}
Lessons: 05, 07

### Prompt
Llama 3.1 8B has 32 layers and 8 KV heads of dimension 128, in BF16. Bytes per token?

### Answer
- KV per token = 2 × layers × KV heads × head dim × bytes.
- 2 × 32 × 8 × 128 × 2 B = 131,072 B, which is **128 KiB**.

### Key numbers
- Llama 3.1 8B: 128 KiB per token `claim: kv_bytes_per_token model=llama-3.1-8b = 128 KiB`
- Llama 3.1 70B: 320 KiB per token

### Follow-up
Q: And a 4,096-token conversation?

A: 4,096 × 128 KiB = 512 MiB.

### Tip
Name each factor out loud.

"""


def choice_card(n: int) -> str:
    return f"""## Card {n}: doubling the pool {{#card-{n}}} solid

### Prompt
Which change doubles the tokens an 8B model's KV pool holds?

### Choices
- [ ] 8-bit weights
- [x] FP8 KV cache
- [ ] A larger max_num_seqs
- [ ] A smaller block size

### Explanation
FP8 halves the bytes per token. **Half the bytes, twice the tokens.**

### Related
- Derive KV bytes per token. {{#card-{n - 1}}}
- Why does the answer flip for 70B?

"""


def generate(cards: int) -> str:
    parts = [FRONT_MATTER]
    for n in range(cards):
        parts.append(choice_card(n) if n % 3 == 2 else recall_card(n))
    return "".join(parts)


# What a child process runs: argv[1] is the mode, the rest are pack files.
CHILD = """
import json, sys, time
from pathlib import Path
started = time.perf_counter()
try:
    from kvdrill.app.services.pack_files import check_files, parse_pack
except ImportError:  # a checkout from before pack files were read by the services
    from kvdrill.engine.packs.parser import check_files, parse_pack
files = [Path(name) for name in sys.argv[3:]]
if sys.argv[1] == "one":
    best = float("inf")
    for _ in range(int(sys.argv[2])):
        began = time.perf_counter()
        cards = len(parse_pack(files[0]).cards)
        best = min(best, time.perf_counter() - began)
    print(json.dumps({"seconds": best, "cards": cards}))
else:
    checked = check_files(files)
    assert not checked.problems, checked.problems[:3]
    print(json.dumps({"seconds": time.perf_counter() - started, "cards": checked.cards}))
"""


def run(env: dict[str, str], mode: str, repeat: int, files: list[Path]) -> dict[str, float]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(repeat), *map(str, files)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    result = json.loads(done.stdout)
    result["wall"] = time.perf_counter() - began
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another kvdrill checkout to compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        big = work / "bench.md"
        big.write_text(generate(args.cards), encoding="utf-8")
        size = big.stat().st_size
        (work / "packs").mkdir()
        packs, _ = write_packs(work / "packs")
        sides = {"this": importable(ROOT, Path(tempfile.mkdtemp(dir=work)))}
        if args.against:
            sides["other"] = importable(args.against, Path(tempfile.mkdtemp(dir=work)))
        results: dict[str, dict[str, list[dict[str, float]]]] = {
            side: {"one": [], "packs": []} for side in sides
        }
        for _ in range(args.rounds):
            for side, env in sides.items():  # A B A B: both sides see the same load
                results[side]["one"].append(run(env, "one", args.repeat, [big]))
                results[side]["packs"].append(run(env, "packs", 1, packs))
    medians = {
        side: {
            "one": statistics.median(r["seconds"] for r in runs["one"]),
            "packs": statistics.median(r["seconds"] for r in runs["packs"]),
            "wall": statistics.median(r["wall"] for r in runs["packs"]),
        }
        for side, runs in results.items()
    }
    cards = results["this"]["one"][0]["cards"]
    print(f"median of {args.rounds} rounds, each in a new process; load average {os.getloadavg()}")
    for side, figures in medians.items():
        name = "this checkout" if side == "this" else f"{args.against}"
        print(f"{name}:")
        print(
            f"  parse_pack, {args.cards} cards ({cards:.0f} with follow-ups, "
            f"{size / 1e6:.2f} MB): best of {args.repeat} "
            f"{figures['one'] * 1000:.0f} ms"
        )
        print(
            f"  kvdrill import's parsing of 10,000 cards (5 packs), imports included: "
            f"{figures['packs'] * 1000:.0f} ms (process wall {figures['wall'] * 1000:.0f} ms)"
        )
    if "other" in medians:
        this, other = medians["this"], medians["other"]
        print(
            f"ratio this/other: one pack {this['one'] / other['one']:.2f}x, 10,000 cards "
            f"{this['packs'] / other['packs']:.2f}x, process wall {this['wall'] / other['wall']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
