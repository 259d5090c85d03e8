"""A pack's YAML reads the same whether libyaml or PyYAML's own parser reads its events
(engine/packs/yaml_blocks.py): the same values and key lines, or the same refusal at the
same line, for every block of the bundled decks and fixtures and for hostile and odd YAML."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import test_plain_pack
import yaml

from kvdrill.engine.packs.yaml_blocks import YamlProblem, load_yaml

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^(?:```|~~~)\s*problem[^\n]*\n(.*?)^(?:```|~~~)", re.MULTILINE | re.DOTALL)
FRONT = re.compile(r"\A---\n(.*?)^---", re.MULTILINE | re.DOTALL)

ODD = [
    "a: &x 1\nb: *x",
    "a: !!set {x}",
    "a: !!python/name:os.system ''",
    "a: [1, 2",
    "a: b: c",
    "pack: x\npack: y",
    "? [a]\n: 1",
    "1: one",
    "a: \ufffe",
    "a: 'é\u2028b'",
    "a:\n\t- 1",
    "a: 2024-05-01",
    "a: |\n  line\n   more\nb: >\n  folded\n  text",
    "a: [" * 30 + "]" * 30,
    "- 1\n- 2",
    "%YAML 1.1\n---\na: 1",
    "a: 1\n---\nb: 2",
    "",
    "# only a comment",
    "a: 0x1F\nb: 1_000\nc: .inf\nd: ~\ne: yes\nf: 012",
    "\ufeffa: 1",
    "a: \x85b",
    "a: {b: 1, c: [2, 3]}",
    "{a: 1}",
    "a: 'it''s'\nb: \"q\\\"x\\u00e9\"",
    "a:\n  - b: 1\n    c: 2\n  - [d]",
    "a: - b",
    "a: b\n c",
    "a: 'open",
    "a: [b, {c: d}]\n...\n",
    "key:value",
    "a: @b",
    "a: `b`",
    "a: 1 # comment\n# more\nb: 2",
    "? a\n? b",
    "a: !foo b",
    "a: !<tag:yaml.org,2002:str> b",
    "a:\n    b: 1\n  c: 2",
    'a: "\\x00"',
    "a: 1\r\nb: 2",
    "a: \u2029",
]


def outcome(text: str) -> object:
    try:
        loaded = load_yaml(text)
    except YamlProblem as problem:
        return ("refused", problem.line, problem.message)
    # repr tells 1 from True and from "1", where == would not.
    return repr((loaded.value, loaded.key_lines))


def texts() -> list[str]:
    found = list(ODD)
    for path in [*test_plain_pack.DECKS, *test_plain_pack.FIXTURES]:
        text = path.read_bytes().decode("utf-8", errors="replace")
        found += BLOCK.findall(text) + FRONT.findall(text)
    rng = random.Random(3)
    values = test_plain_pack.YAML_VALUES[:-1]  # not the 70,000 characters: over the size limit
    for _ in range(300):
        lines = [f"{rng.choice(test_plain_pack.YAML_KEYS)}: {rng.choice(values)}" for _ in range(4)]
        lines.insert(rng.randrange(5), rng.choice(["", "  nested: 1", "- item", "x:1", "\t"]))
        found.append("\n".join(lines))
    return found


def test_libyaml_and_pyyaml_read_every_block_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    assert yaml.__with_libyaml__, "PyYAML without libyaml: nothing to compare"
    cases = texts()
    with_libyaml = [outcome(text) for text in cases]
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    pure = [outcome(text) for text in cases]
    differ = [(text, a, b) for text, a, b in zip(cases, with_libyaml, pure, strict=True) if a != b]
    assert not differ, "\n\n".join(f"{t!r}\n libyaml: {a}\n pyyaml:  {b}" for t, a, b in differ[:6])
    assert sum(isinstance(result, tuple) for result in pure) >= 8  # refusals were compared
    assert len(cases) > 400
