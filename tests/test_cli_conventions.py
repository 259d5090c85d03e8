"""Conventions of a command-line tool: global options anywhere, the environment in --help,
"did you mean", --json, shell completion, masked passwords and long arguments cut."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kvdrill.app.cli import main
from kvdrill.app.commands import COMMAND_MODULES
from kvdrill.app.services import environment

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "packs"
SM2_PACK = FIXTURES / "sm2" / "sm2-fixture.md"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_info:
        code = exit_info.code
    out, err = capsys.readouterr()
    return int(code or 0), out, err


@pytest.mark.parametrize("before", [True, False])
def test_db_and_profile_go_before_or_after_the_command(db_url: str, capsys, before: bool) -> None:
    options = ["--db", db_url, "--profile", "kim"]
    command = ["settings", "theme", "light"]
    argv = [*options, *command] if before else [*command, *options]
    assert run(capsys, *argv)[0] == 0
    code, out, _ = run(capsys, "settings", "--json", "--db", db_url, "--profile", "kim")
    assert code == 0 and json.loads(out)["theme"] == "light"
    _, out, _ = run(capsys, "--db", db_url, "settings", "--json")  # the default profile
    assert json.loads(out)["theme"] == "dark"


def test_help_lists_every_kvdrill_environment_variable(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert set(environment.VARIABLES) >= {"KVDRILL_DB", "KVDRILL_NOW", "KVDRILL_DATA_DIR"}
    for name, meaning in environment.VARIABLES.items():
        assert f"{name}  " in out and meaning in " ".join(out.split())


def test_environment_py_is_the_only_module_that_reads_kvdrill_variables() -> None:
    readers = []
    for folder in ("app", "engine", "store"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "os.environ" in text or "getenv" in text:
                readers.append(path.relative_to(ROOT).as_posix())
    assert readers == ["app/services/environment.py"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["dril"], "there is no command 'dril' (did you mean 'drill'?)"),
        (["improt", "x"], "there is no command 'improt' (did you mean 'import'?)"),
        (["completion", "zhs"], "'zhs' is not a choice (did you mean 'zsh'?)"),
    ],
)
def test_a_misspelt_command_gets_a_suggestion(capsys, argv, expected) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert expected in err and err.count("\n") == 1


def test_a_misspelt_card_to_unsuspend_gets_a_suggestion(db_url: str, capsys) -> None:
    assert run(capsys, "--db", db_url, "import", str(SM2_PACK))[0] == 0
    code, _, err = run(capsys, "--db", db_url, "drill", "--unsuspend", "sm2-fixture/alpah")
    assert code == 1
    assert "there is no card 'sm2-fixture/alpah' (did you mean 'sm2-fixture/alpha'?)" in err


def test_check_json_has_errors_and_counts(capsys) -> None:
    code, out, _ = run(capsys, "check", "--json", str(FIXTURES / "sm2"))
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["errors"] == []
    assert report["packs"] == 2
    assert report["problem_templates"] == report["cards_by_kind"]["problem"] > 0
    assert sum(report["cards_by_kind"].values()) == report["cards"]
    assert "claims" in report

    code, out, _ = run(capsys, "check", "--json", str(FIXTURES / "bad"))
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["errors"]
    first = report["errors"][0]
    assert set(first) == {"path", "line", "message"} and first["line"] >= 1


def test_import_json_names_the_cards_added_changed_retired_and_revived(
    db_url: str, tmp_path: Path, capsys
) -> None:
    pack = tmp_path / "p.md"
    original = SM2_PACK.read_text(encoding="utf-8")
    pack.write_text(original, encoding="utf-8")
    code, out, _ = run(capsys, "--db", db_url, "import", "--dry-run", "--json", str(pack))
    dry = json.loads(out)
    assert code == 0 and dry["dry_run"] is True
    added = dry["packs"][0]["added"]
    assert {"id": "alpha", "title": "First recall card"} in added
    # The dry run wrote nothing: the real import adds the same cards.
    code, out, _ = run(capsys, "--db", db_url, "import", "--json", str(pack))
    assert json.loads(out)["packs"][0]["added"] == added

    # Drop alpha (and so its follow-up): retired, with their titles; then alpha comes back.
    start = original.index("## First recall card")
    end = original.index("\n## ", start + 1)
    pack.write_text(original[:start] + original[end + 1 :], encoding="utf-8")
    code, out, _ = run(capsys, "--db", db_url, "import", "--json", str(pack))
    retired = json.loads(out)["packs"][0]["retired"]
    assert {"id": "alpha", "title": "First recall card"} in retired
    pack.write_text(original, encoding="utf-8")
    code, out, _ = run(capsys, "--db", db_url, "import", "--dry-run", "--json", str(pack))
    assert json.loads(out)["packs"][0]["revived"] == retired


def test_drill_suspended_json(db_url: str, capsys) -> None:
    assert run(capsys, "--db", db_url, "import", str(SM2_PACK))[0] == 0
    code, out, _ = run(capsys, "--db", db_url, "drill", "--suspended", "--json")
    assert code == 0 and json.loads(out) == []
    from kvdrill.store.db import open_database, session_sql
    from kvdrill.store.profiles import get_or_create_profile
    from kvdrill.store.reviews import find_card, set_suspended

    database = open_database(db_url)
    from datetime import datetime

    with database.session() as session:
        profile = get_or_create_profile(session, "default", datetime(2026, 3, 10))
        card_id = find_card(session, "sm2-fixture/alpha").id
        set_suspended(session_sql(session), profile.id, card_id, suspended=True)
    database.close()
    code, out, _ = run(capsys, "--db", db_url, "drill", "--suspended", "--json")
    assert json.loads(out) == [{"card": "sm2-fixture/alpha", "title": "First recall card"}]


def test_json_without_suspended_is_refused_in_one_line(db_url: str, capsys) -> None:
    code, _, err = run(capsys, "--db", db_url, "drill", "--json")
    assert code == 1 and "--json goes with --suspended" in err


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_command(capsys, shell: str) -> None:
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0
    for command in ("drill", "check", "import", "calc", "stats", "settings", "problem"):
        assert command in out
    assert "--unsuspend" in out and "--profile" in out
    checker = {"bash": ["bash", "-n"], "zsh": ["zsh", "-n"], "fish": ["fish", "--no-execute"]}
    program = shutil.which(checker[shell][0])
    if program is None:
        pytest.skip(f"{shell} is not installed: the script's syntax is not checked")
    result = subprocess.run(
        [*checker[shell], "/dev/stdin"], input=out, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_bash_completes_a_command_from_the_script(capsys, tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "kvdrill.bash"
    script.write_text(run(capsys, "completion", "bash")[1], encoding="utf-8")
    probe = (
        f"source {script}\n"
        "COMP_WORDS=(kvdrill sett); COMP_CWORD=1; COMP_LINE='kvdrill sett'; COMP_POINT=12\n"
        "_shtab_kvdrill kvdrill sett kvdrill\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    result = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["settings"], result.stderr


def test_bash_completes_templates_models_gpus_packs_and_settings_keys(
    capsys, tmp_path: Path, db_url: str
) -> None:
    """The generated function, run in a real bash as bash runs it on Tab: the values of the
    options that name something, the packs and templates read from the learner's database."""
    import os
    import sys

    from kvdrill.app.services.backend import Services

    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    services = Services(db_url, "default", bundled=True)
    services.overview()  # the first open stores the bundled decks
    services.close()
    script = tmp_path / "kvdrill.bash"
    script.write_text(run(capsys, "completion", "bash")[1], encoding="utf-8")
    probes = {
        "kvdrill calc --model llama-3.1-": ["llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b"],
        "kvdrill calc --gpu h": ["h100-pcie", "h100-sxm", "h200"],
        # A pack's own new_order (kvdrill settings --pack P new_order random) under the same word.
        "kvdrill settings new": ["new_order", "new_per_day"],
        "kvdrill drill --pack spec": ["speculative-decoding"],
        "kvdrill problem capacity-problems/gen-kv-b": ["capacity-problems/gen-kv-bytes-per-token"],
    }
    lines = [f"source {script}"]
    for line in probes:
        words = line.split()
        lines += [
            f"COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE='{line}'; "
            f"COMP_POINT={len(line)}",
            f"_shtab_kvdrill kvdrill {words[-1]} {words[-2]}",
            'echo "${COMPREPLY[*]}"',
        ]
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "KVDRILL_DB": db_url,
    }
    result = subprocess.run(
        ["bash", "-c", "\n".join(lines)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    completed = [sorted(line.split()) for line in result.stdout.splitlines()]
    assert completed == list(probes.values()), result.stderr


PASSWORD = "hunter2-s3cret"


def test_a_database_password_never_reaches_a_message(capsys, monkeypatch) -> None:
    url = f"postgresql+psycopg://learner:{PASSWORD}@db.invalid:5/kv"
    code, out, err = run(capsys, "--db", url, "stats")
    assert code == 1 and PASSWORD not in out + err
    assert "learner:***@db.invalid" in err
    monkeypatch.setenv("KVDRILL_DB", url.replace("postgresql+psycopg", "nosuchdriver"))
    code, out, err = run(capsys, "settings")
    assert code == 1 and PASSWORD not in out + err and "***" in err


def test_the_services_mask_the_password_for_the_full_screen_app_too() -> None:
    from kvdrill.app.services.backend import Services
    from kvdrill.engine.errors import UserError

    services = Services(f"postgresql+psycopg://u:{PASSWORD}@db.invalid/kv", "default")
    with pytest.raises(UserError) as raised:
        services.settings()
    assert PASSWORD not in str(raised.value)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://bob:pw@host/db", "postgresql://bob:***@host/db"),
        ("x mysql+pymysql://a:p@ss@h:3306/d y", "x mysql+pymysql://a:***@h:3306/d y"),
        ("postgresql://bob@host/db", "postgresql://bob@host/db"),
        ("sqlite:////tmp/a:b@c.db", "sqlite:////tmp/a:b@c.db"),
    ],
)
def test_mask_password(text: str, masked: str) -> None:
    assert environment.mask_password(text) == masked


def test_a_very_long_argument_is_cut_in_the_error_line(db_url: str, capsys) -> None:
    long_name = "q" * 5000
    code, _, err = run(capsys, "--db", db_url, "drill", "--plain", "--pack", long_name)
    assert code == 1 and err.count("\n") == 1
    # The argument is cut; the list of packs that do exist may be as long as the collection.
    assert "qqqq[...]" in err and "q" * 81 not in err

    code, _, err = run(capsys, long_name)
    assert code == 2 and err.count("\n") == 1 and len(err) < 400


def test_every_command_module_is_reachable_from_help(capsys) -> None:
    _, out, _ = run(capsys, "--help")
    for name in ("settings", "problem", "completion"):
        assert f"    {name} " in out
    assert len(COMMAND_MODULES) >= 9


def test_a_database_path_too_long_for_the_file_system_is_one_cut_line(
    tmp_path: Path, capsys
) -> None:
    url = f"sqlite:///{tmp_path / ('d' * 400) / 'kvdrill.db'}"
    code, out, err = run(capsys, "--db", url, "settings")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "File name too long" in err and "dddd[...]" in err and "Traceback" not in err
