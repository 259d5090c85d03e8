"""How long parsing a pack of the maximum size (2,000 cards) takes.

Usage: python scripts/bench_pack_parser.py [--cards N] [--repeat R]

Writes a generated pack (recall cards with lists, claims and follow-ups, and multiple-choice
cards with related links) to a temporary file and reports the best wall and CPU time of
``parse_pack`` over R runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kvdrill.engine.packs.parser import parse_pack  # noqa: E402

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.md"
        path.write_text(generate(args.cards), encoding="utf-8")
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            pack = parse_pack(path)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        size = path.stat().st_size
    print(
        f"parse_pack: {args.cards} cards ({len(pack.cards)} with follow-ups), "
        f"{size / 1e6:.2f} MB: best {min(walls) * 1000:.0f} ms wall, "
        f"{min(cpus) * 1000:.0f} ms CPU (of {args.repeat} runs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
