"""``kvdrill problem``: list templates, print a variant by seed, check an answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.store.db import open_database

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = "capacity-problems/gen-kv-bytes-per-token"


def run(capsys, db_url: str, *argv: str) -> tuple[int, str, str]:
    code = main(["--db", db_url, "problem", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_the_bundled_templates(db_url: str, capsys) -> None:
    code, out, _ = run(capsys, db_url, "--list", "--json")
    templates = json.loads(out)
    assert code == 0
    ids = [item["template"] for item in templates]
    assert TEMPLATE in ids and all("/" in item for item in ids)
    assert all(item["title"] for item in templates)
    code, out, _ = run(capsys, db_url, "--list")
    # One row per template; a title too long for 80 columns goes on under itself.
    rows = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert code == 0 and rows == ids


def test_a_variant_is_printed_without_its_answer(db_url: str, capsys) -> None:
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--json")
    variant = json.loads(out)
    assert code == 0
    assert variant["template"] == TEMPLATE and variant["seed"] == 7
    assert variant["unit"] and variant["prompt"] and variant["inputs"]
    assert "expected" not in variant and "correct" not in variant
    code, text, _ = run(capsys, db_url, TEMPLATE, "--seed", "7")
    assert variant["prompt"].split("\n")[0] in text and f"Unit asked: {variant['unit']}" in text
    assert "Expected" not in text and "Answer:" not in text


def test_an_answer_is_checked_with_verdict_diagnosis_and_worked_solution(
    db_url: str, capsys
) -> None:
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--json")
    variant = json.loads(out)
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--answer", "1 B", "--json")
    wrong = json.loads(out)
    assert code == 1 and wrong["correct"] is False
    assert wrong["unit"] == variant["unit"] and isinstance(wrong["expected"], float)
    assert wrong["message"] and wrong["worked_solution"]
    right = f"{wrong['expected']:g} {wrong['unit']}"
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--answer", right, "--json")
    checked = json.loads(out)
    assert code == 0 and checked["correct"] is True and checked["diagnosis"] is None

    half = f"{wrong['expected'] / 2:g} {wrong['unit']}"  # the factor 2 of K and V left out
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--answer", half)
    assert code == 1
    assert f"Not quite: expected {right}" in out and "Diagnosis: " in out
    assert "Expected:" not in out  # the verdict line names the value once

    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", "7", "--answer", "lots")
    assert code == 1 and "does not start with a number" in out
    assert right not in out  # a typo does not give the solution away


def _variant_in_new_process(db_url: str, seed: str) -> dict:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "--db",
            db_url,
            "problem",
            TEMPLATE,
            "--seed",
            seed,
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "random"},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_same_template_and_seed_give_the_same_variant_in_two_processes(
    db_url: str, tmp_path: Path, capsys, collection
) -> None:
    other_db = f"sqlite:///{tmp_path / 'other.db'}"
    for url in (db_url, other_db):  # the first start here: the processes only draw
        database = open_database(url)
        collection.import_bundled(database)
        database.close()
    first = _variant_in_new_process(db_url, "12345")
    assert _variant_in_new_process(other_db, "12345") == first
    # Another seed gives another problem, not only another seed (no process needed for that).
    others = [json.loads(run(capsys, db_url, TEMPLATE, "--seed", s, "--json")[1]) for s in "123"]
    assert any(other["inputs"] != first["inputs"] for other in others)


def test_without_a_seed_the_printed_seed_gives_the_variant_back(db_url: str, capsys) -> None:
    code, out, _ = run(capsys, db_url, TEMPLATE, "--json")
    drawn = json.loads(out)
    code, out, _ = run(capsys, db_url, TEMPLATE, "--seed", str(drawn["seed"]), "--json")
    assert json.loads(out) == drawn


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["gen-kv-bytes-per-tokn"], "(did you mean 'gen-kv-bytes-per-token'?)"),
        ([], "give a TEMPLATE or --list"),
        (["--list", "--seed", "3"], "--seed and --answer go with a TEMPLATE"),
        ([TEMPLATE, "--seed", "-1"], "--seed takes a whole number from 0 to"),
    ],
)
def test_problem_mistakes_are_one_line(db_url: str, capsys, argv, message) -> None:
    code, out, err = run(capsys, db_url, *argv)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert message in err, err


def test_a_vietnamese_profile_lists_the_courses_templates(db_url: str, capsys) -> None:
    """The same template ids in either language: an edition's templates are its original's."""
    code, out, _ = run(capsys, db_url, "--list", "--json")
    english = [item["template"] for item in json.loads(out)]
    assert main(["--db", db_url, "settings", "language", "vi"]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, db_url, "--list", "--json")
    listed = json.loads(out)
    assert code == 0 and [item["template"] for item in listed] == english
    assert TEMPLATE in english
    titles = {item["template"]: item["title"] for item in listed}
    assert titles[TEMPLATE] == "Số byte KV mỗi token, với mọi mô hình và kiểu dữ liệu KV"


def test_a_vietnamese_profile_gets_the_same_variant_in_vietnamese(db_url: str, capsys) -> None:
    """problems-vi.md: the same seed draws the same numbers; the prompt and the unit word are
    Vietnamese, and an answer typed with that word is read."""
    requests = "capacity-problems/gen-requests-that-fit"
    english = json.loads(run(capsys, db_url, requests, "--seed", "3", "--json")[1])
    assert main(["--db", db_url, "settings", "language", "vi"]) == 0
    capsys.readouterr()
    variant = json.loads(run(capsys, db_url, requests, "--seed", "3", "--json")[1])
    assert variant["inputs"] == english["inputs"] and english["unit"] == "requests"
    assert variant["unit"] == "yêu cầu" and "Mỗi yêu cầu (request)" in variant["prompt"]
    pool, prompt, output = (
        int(variant["inputs"][name].replace(",", ""))
        for name in ("kv_pool_tokens", "prompt_tokens", "output_tokens")
    )
    right = pool // (prompt + output)
    code, out, _ = run(capsys, db_url, requests, "--seed", "3", "--answer", f"{right} yêu cầu")
    assert code == 0 and f"Đúng: {right} yêu cầu" in out  # the verdict in Vietnamese too
    # A template named in full is drawn whatever the profile's language.
    assert run(capsys, db_url, TEMPLATE, "--seed", "1")[0] == 0


@pytest.mark.sqlite_only
def test_on_a_sqlite_file_with_packs_it_opens_no_sqlalchemy(db_url: str, capsys) -> None:
    """The template is read with ``sqlite3`` alone once the packs are stored (the first
    start stores the bundled decks through the store)."""
    assert run(capsys, db_url, "--list")[0] == 0
    probe = (
        "import sys; from kvdrill.app.cli import main; code = main(sys.argv[1:]); "
        "print([m for m in ('sqlalchemy', 'alembic') if m in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, "--db", db_url, "problem", TEMPLATE, "--seed", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "seed 7" in result.stdout and result.stdout.endswith("\n[]\n")
