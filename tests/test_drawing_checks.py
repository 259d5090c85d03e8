"""``kvdrill check`` and an import draw each problem template's variants once per run: an
edition's template, its original's but for the prompt's words, is not drawn again. What was
drawn is the run's own (engine/packs/checks.py ``DrawingChecks``, made by the caller): the
engine keeps nothing between runs, so a second run checks the templates afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvdrill.app.services.importing import read_packs
from kvdrill.engine.problems import generator
from kvdrill.engine.problems.template_fields import VALIDATION_SEEDS

pytestmark = pytest.mark.unit

TEMPLATE = """
~~~problem
ask: kv_bytes_per_token
vary:
  model: gqa
  kv_dtype: [bf16, fp8]
prompt: |
  {prompt}
unit: KiB
~~~
"""

ORIGINAL = (
    "---\npack: kv-gen\ntitle: KV generated\nversion: 1\n---\n\n"
    "## KV bytes per token, any model {#gen-kv}\n\n### Problem\n"
    + TEMPLATE.replace("{prompt}", "{model} keeps its KV cache in {kv_dtype}. Bytes per token?")
)
EDITION = (
    "---\npack: kv-gen-vi\ntitle: KV sinh tự động\nversion: 1\nlang: vi\nedition_of: kv-gen\n"
    "---\n\n## Số byte KV mỗi token, mô hình bất kỳ {#gen-kv}\n\n### Problem\n"
    + TEMPLATE.replace("{prompt}", "{model} giữ KV cache ở {kv_dtype}. Mỗi token bao nhiêu byte?")
)


@pytest.fixture
def draws(monkeypatch) -> list[str]:
    """The template id of every variant drawn to check a template."""
    drawn: list[str] = []
    real = generator.draw_variant

    def counting(problem, template_id, seed):
        drawn.append(template_id)
        return real(problem, template_id, seed)

    monkeypatch.setattr(generator, "draw_variant", counting)
    return drawn


def test_an_editions_template_is_drawn_once_with_its_original_in_a_run(
    tmp_path: Path, draws: list[str]
) -> None:
    (tmp_path / "kv-gen.md").write_text(ORIGINAL, encoding="utf-8")
    (tmp_path / "kv-gen-vi.md").write_text(EDITION, encoding="utf-8")
    assert read_packs([tmp_path]).problems == []
    assert draws == ["check/gen-kv"] * VALIDATION_SEEDS


def test_each_run_draws_its_templates_itself(tmp_path: Path, draws: list[str]) -> None:
    (tmp_path / "kv-gen.md").write_text(ORIGINAL, encoding="utf-8")
    for _run in range(2):
        assert read_packs([tmp_path]).problems == []
    assert draws == ["check/gen-kv"] * VALIDATION_SEEDS * 2


def test_a_template_that_cannot_be_drawn_is_reported_in_each_file(
    tmp_path: Path, draws: list[str]
) -> None:
    """The edition's copy of a drawing error is its own line, in its own file."""
    never = "unit: KiB\nconstraints: [layers > 1000]\n"
    (tmp_path / "kv-gen.md").write_text(ORIGINAL.replace("unit: KiB\n", never), encoding="utf-8")
    (tmp_path / "kv-gen-vi.md").write_text(EDITION.replace("unit: KiB\n", never), encoding="utf-8")
    problems = sorted(read_packs([tmp_path]).problems)
    assert [Path(problem.path).name for problem in problems] == ["kv-gen-vi.md", "kv-gen.md"]
    assert all("no variant meets the constraints" in problem.message for problem in problems)
    assert draws == ["check/gen-kv"]  # the first seed fails: one draw for both files
