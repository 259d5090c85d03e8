"""A claim never overrides the catalog to agree with its prose (issue 23, items 2, 5, 9).

A card once claimed "1.45 GB per GPU left" for Llama 3.1 70B on two H100s by setting
gpu_mem=80GB, reading the HBM as 80e9 bytes; vLLM sees 79.22 GiB and starts with 4.09 GiB.
A claim that names a GPU takes its memory and bandwidth from the catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

DECKS = Path(__file__).resolve().parent.parent / "decks"
CLAIM = re.compile(r"`claim: ([^`]*)`")


def test_no_claim_naming_a_gpu_overrides_its_memory_or_bandwidth() -> None:
    offenders = []
    for path in sorted(DECKS.glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for claim in CLAIM.findall(line):
                words = claim.split()
                if any(w.startswith("gpu=") for w in words) and any(
                    w.split("=")[0] in ("gpu_mem", "mem", "memory", "hbm_bandwidth", "bandwidth")
                    for w in words
                ):
                    offenders.append(f"{path.name}:{number}: {claim}")
    assert offenders == []


def test_no_card_quotes_an_h100_as_79_1_gib() -> None:
    # The catalog's H100 figure is vLLM's logged 79.22 GiB (PR #10511); 79.1 was a third value.
    for path in sorted(DECKS.glob("*.md")):
        assert "79.1 GiB" not in path.read_text(encoding="utf-8"), path.name
