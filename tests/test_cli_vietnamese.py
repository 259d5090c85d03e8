"""The command line in Vietnamese: ``--help`` of kvdrill and of every command (argparse's own
headings too) and its one-line errors, for a learner whose locale or profile says ``vi``."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from kvdrill.app import cli
from kvdrill.app.services.language import use_language


@pytest.fixture
def vietnamese_locale(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    yield
    use_language("en")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Every text a command's --help shows, by where it is: the description and each option's."""
    texts = {"description": parser.description or "", "epilog": parser.epilog or ""}
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            texts[" ".join(action.option_strings) or action.dest] = action.help
    return texts


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"kvdrill": parser, **subparsers.choices}


def test_kvdrill_help_is_vietnamese(capsys, vietnamese_locale) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert out.startswith("cách dùng: kvdrill")
    assert "\ntuỳ chọn:\n" in out and "\nđối số vị trí:\n" in out and "biến môi trường:" in out
    assert "hiện trợ giúp này rồi thoát" in out
    for english in ("usage:", "options:", "positional arguments", "show this help"):
        assert english not in out


def test_every_commands_help_text_is_translated(capsys, vietnamese_locale) -> None:
    """Each description, epilog and option help differs from its English text: a new option
    without a Vietnamese entry fails here."""
    use_language("en")
    cli.use_argparse_catalog()
    english = {name: helps(parser) for name, parser in command_parsers().items()}
    use_language("vi")
    same = [
        f"{name} {where}: {text!r}"
        for name, parser in command_parsers().items()
        for where, text in helps(parser).items()
        if text and text == english[name][where]
    ]
    assert same == [], "\n".join(same)
    for name in ("stats", "drill", "cards", "calc"):
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and out.startswith(f"cách dùng: kvdrill {name}") and "tuỳ chọn:" in out


def test_a_wrong_argument_is_one_vietnamese_line(capsys, vietnamese_locale) -> None:
    code, _, err = run(capsys, "statz")
    assert code == 2
    assert err == "kvdrill: không có lệnh 'statz' (ý bạn là 'stats'?) (xem kvdrill --help)\n"
    code, _, err = run(capsys, "stats", "--days")
    assert code == 2 and err.startswith("kvdrill stats: đối số --days: cần một đối số"), err
    code, _, err = run(capsys, "completion", "tcsh")
    assert code == 2 and "'tcsh' không phải một lựa chọn (chọn một trong bash" in err, err


def test_english_stays_english(capsys) -> None:
    code, out, _ = run(capsys, "--help")
    assert out.startswith("usage: kvdrill") and "\noptions:\n" in out
    code, _, err = run(capsys, "statz")
    assert (
        err == "kvdrill: there is no command 'statz' (did you mean 'stats'?) (see kvdrill --help)\n"
    )


@pytest.mark.store
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_profiles_language_speaks_on_either_database(
    capsys, backend: str, tmp_path, request: pytest.FixtureRequest
) -> None:
    """``language vi`` set in the profile: the next command is Vietnamese with an English
    locale, on PostgreSQL as on SQLite (read before the parser is built)."""
    url = (
        request.getfixturevalue("postgres_url")
        if backend == "postgresql"
        else f"sqlite:///{tmp_path / 'kvdrill.db'}"
    )
    try:
        code, out, _ = run(capsys, "--db", url, "stats", "--help")
        assert code == 0 and out.startswith("usage: kvdrill stats")
        assert run(capsys, "--db", url, "settings", "language", "vi")[0] == 0
        code, out, _ = run(capsys, "--db", url, "stats", "--help")
        assert code == 0 and out.startswith("cách dùng: kvdrill stats"), out
        code, out, _ = run(capsys, "--db", url, "--profile", "other", "stats", "--help")
        assert out.startswith("usage: kvdrill stats"), "another profile keeps its own language"
    finally:
        use_language("en")


def test_a_commands_own_messages_are_vietnamese(capsys, vietnamese_locale) -> None:
    code, _, err = run(capsys, "stats", "--days", "0")
    assert code == 1 and err == "kvdrill: --days nhận một số ngày nguyên từ 1 đến 3650.\n"
    code, _, err = run(capsys, "problem", "--list", "--seed", "3")
    assert code == 1 and "không đi cùng --list" in err, err
    code, _, err = run(capsys, "calc")
    assert code == 1 and "hãy nêu một QUANTITY cần tính" in err, err


@pytest.mark.store
def test_the_stores_errors_are_vietnamese(capsys, vietnamese_locale, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'kvdrill.db'}"
    code, _, err = run(capsys, "--db", url, "cards", "no/card")
    assert code == 1 and err.startswith("kvdrill: không có thẻ 'no/card'"), err
    code, _, err = run(capsys, "--db", url, "drill", "--plain", "--pack", "nosuch")
    assert code == 1 and err.startswith("kvdrill: không có bộ thẻ 'nosuch'"), err


@pytest.fixture
def vietnamese_profile(capsys, tmp_path):
    """A temp database whose profile says ``language vi`` (the locale stays English)."""
    url = f"sqlite:///{tmp_path / 'kvdrill.db'}"
    assert run(capsys, "--db", url, "settings", "language", "vi")[0] == 0
    yield url
    use_language("en")


@pytest.mark.store
def test_the_command_that_upgrades_an_older_file_speaks_its_profiles_language(
    capsys, vietnamese_profile
) -> None:
    """The first command after kvdrill is updated finds the file one revision behind: it
    upgrades it, and it already speaks the language the profile chose (it spoke English)."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from kvdrill.store.location import HEAD_REVISION
    from kvdrill.store.migrate import MIGRATIONS_DIR

    engine = create_engine(vietnamese_profile)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "-1")
    engine.dispose()
    use_language("en")
    code, out, err = run(capsys, "--db", vietnamese_profile, "settings")
    assert code == 0, err
    assert "số thẻ mới mỗi ngày" in out, out
    with create_engine(vietnamese_profile).connect() as connection:
        revision = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    assert revision == HEAD_REVISION


@pytest.mark.store
def test_the_model_and_gpu_catalogs_are_vietnamese(capsys, vietnamese_profile) -> None:
    """Headings, notes and the footnote in Vietnamese, a datasheet figure with a decimal comma
    (``1,555 TB/s``: a Vietnamese reader takes ``1.555`` for one thousand five hundred), ids
    and units as typed; an English profile keeps the English tables."""
    code, out, _ = run(capsys, "--db", vietnamese_profile, "gpus")
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:4] == ["mã", "tên", "bộ", "nhớ"], lines[0]
    assert "a100-40gb" in out and "1,555 TB/s" in out and "CUDA thấy 39,49 GiB" in out
    assert "còn gọi là a100-40" in out and "Bộ nhớ tính bằng GB thập phân" in out
    assert all(len(line) <= 80 for line in lines)
    code, out, _ = run(capsys, "--db", vietnamese_profile, "models")
    assert code == 0 and out.split()[:3] == ["mã", "layer", "head/kv"] and "tham số" in out
    assert "46,7 B" in out and "12,9 B hoạt động; MoE 8 expert, 2 hoạt động" in out
    for english in ("memory", "bandwidth", "CUDA sees", "aka ", "active", "experts"):
        assert english not in out
    assert all(len(line) <= 80 for line in out.splitlines())
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, out, _ = run(capsys, "--db", vietnamese_profile, "gpus")
    assert out.split()[:4] == ["id", "name", "memory", "bandwidth"] and "1.555 TB/s" in out
    assert "CUDA sees 39.49 GiB; aka a100-40" in out


def listed(out: str) -> dict[str, dict[str, str]]:
    """``calc --list`` read back: per section, each name's text with its wrapped lines joined
    (a line broken at a hyphen joined without the space)."""
    sections: dict[str, dict[str, str]] = {}
    rows: dict[str, str] = {}
    name = ""
    for line in out.splitlines():
        if line and not line.startswith(" "):
            rows = sections.setdefault(line, {})
        elif line.startswith("  ") and not line.startswith("   "):
            name, _, text = line.strip().partition(" ")
            rows[name] = text.strip()
        elif line.strip():
            joint = "" if rows[name].endswith("-") else " "
            rows[name] += joint + line.strip()
    return sections


def unwrapped(text: str) -> str:
    return re.sub(r"-\s+", "-", " ".join(text.split()))


@pytest.mark.store
def test_calc_list_describes_every_quantity_and_symbol_in_vietnamese(
    capsys, vietnamese_profile
) -> None:
    """Each formula's and symbol's description in Vietnamese, "dimensionless" too; names and
    units as typed (byte, token, s); an English profile keeps the English list."""
    from kvdrill.engine.capacity.formulas import FORMULAS, SYMBOLS
    from kvdrill.i18n import _

    code, out, _err = run(capsys, "--db", vietnamese_profile, "calc", "--list")
    assert code == 0 and all(len(line) <= 80 for line in out.splitlines())
    quantities, symbols = listed(out).values()
    assert list(quantities) == list(FORMULAS) and list(symbols) == list(SYMBOLS)
    assert symbols["layers"] == "[không thứ nguyên] số lớp transformer (block)"
    assert symbols["kv_bytes_per_token"] == "[byte] số byte KV cache một token chiếm trên một GPU"
    assert quantities["kv_pool_tokens"] == "[token] Số byte của pool / số byte KV mỗi token."
    english = []
    for name, entry in [*FORMULAS.items(), *SYMBOLS.items()]:
        shown = (quantities if entry in FORMULAS.values() else symbols)[name]
        if unwrapped(entry.description) in unwrapped(shown) or "dimensionless" in shown:
            english.append(f"{name}: {shown}")
        assert unwrapped(shown).endswith(unwrapped(_(entry.description))), name
    assert english == []
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, out, _err = run(capsys, "--db", vietnamese_profile, "calc", "--list")
    quantities, symbols = listed(out).values()
    assert symbols["layers"] == "[dimensionless] transformer layers (blocks)"
    for name, symbol in SYMBOLS.items():
        assert unwrapped(symbols[name]) == unwrapped(f"[{symbol.unit}] {symbol.description}")


@pytest.mark.store
def test_a_gpus_memory_note_is_vietnamese(capsys, vietnamese_profile) -> None:
    """The catalog's prose (gpus.yaml's memory_note) is extracted for the translator and shown
    in the learner's language, its figures in Vietnamese convention (1.440 GB)."""
    from kvdrill.engine.capacity.catalog import gpus
    from kvdrill.i18n.extract import extracted

    notes = {card.memory_note for card in gpus().values() if card.memory_note}
    assert notes and notes <= {message.id for message in extracted()}
    code, out, _err = run(capsys, "--db", vietnamese_profile, "gpus")
    text = " ".join(out.split())
    assert (
        code == 0 and "180 GB như bản xuất xưởng trong HGX B200 (1.440 GB mỗi board 8 GPU)" in text
    )
    assert "as shipped" not in text and "announcement" not in text
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, out, _err = run(capsys, "--db", vietnamese_profile, "gpus")
    assert "180 GB as shipped in HGX B200 (1,440 GB per 8-GPU board)" in " ".join(out.split())


@pytest.mark.store
def test_a_calc_result_reads_in_vietnamese_convention(capsys, vietnamese_profile) -> None:
    """The result line is shown for reading: 3,427 and 141,1 GB for a vi profile (3.427 and
    141.1 GB in English), units as typed; --json keeps the engineering form --set takes."""
    url = vietnamese_profile
    concurrency = ("calc", "max_concurrency", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    code, out, _err = run(capsys, "--db", url, *concurrency, "--set", "max_model_len=131072")
    assert code == 0 and out == "max_concurrency = 3,427\n", out
    weights = ("calc", "weight_bytes", "--model", "llama-3.1-70b")
    assert run(capsys, "--db", url, *weights, "--unit", "GB")[1] == "weight_bytes = 141,1 GB\n"
    code, out, _err = run(capsys, "--db", url, *weights)
    assert out == "weight_bytes = 131,4 GiB (141,1 GB)\n", out
    pool = ("calc", "kv_pool_tokens", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert run(capsys, "--db", url, *pool)[1] == "kv_pool_tokens = 449.253 tokens\n"
    code, out, _err = run(capsys, "--db", url, *weights, "--json")
    assert json.loads(out)["text"] == "131.4 GiB (141.1 GB)"
    code, _out, err = run(
        capsys, "--db", url, "calc", "kv_pool_tokens", "--model", "llama-3.1-70b", "--gpu", "l4"
    )
    assert code == 1 and "sẽ là -370.188 tokens" in err and "(-121,3 GB)" in err, err
    assert run(capsys, "--db", url, "settings", "language", "en")[0] == 0
    assert run(capsys, "--db", url, *pool)[1] == "kv_pool_tokens = 449,253 tokens\n"
    assert run(capsys, "--db", url, *weights)[1] == "weight_bytes = 131.4 GiB (141.1 GB)\n"


@pytest.mark.store
def test_converts_word_for_the_id_it_refuses_is_vietnamese(
    capsys, vietnamese_profile, tmp_path
) -> None:
    """The words passed into a sentence ("pack id", "nothing checked") are translated with it."""
    source = tmp_path / "deck.csv"
    source.write_text("front,back\n", encoding="utf-8")
    convert = ("convert", str(source), "-o", str(tmp_path / "out.md"), "--pack-id", "Bad Id")
    code, _out, err = run(capsys, "--db", vietnamese_profile, *convert)
    assert code == 1 and err.startswith('kvdrill: id bộ thẻ "Bad Id" không hợp lệ: hãy dùng'), err
    assert "pack id" not in err and not (tmp_path / "out.md").exists()
    code, _out, err = run(capsys, "--db", vietnamese_profile, "check", "")
    assert code == 1 and err == "kvdrill: PATH rỗng (một biến shell chưa đặt?); không kiểm tra gì\n"
    code, _out, err = run(capsys, "--db", vietnamese_profile, "import", "")
    assert code == 1 and err.endswith("; không nhập gì\n"), err
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, _out, err = run(capsys, "--db", vietnamese_profile, *convert)
    assert code == 1 and err.startswith('kvdrill: pack id "Bad Id" is not valid: use lowercase')


@pytest.mark.store
def test_converts_report_and_a_missing_pack_file_are_vietnamese(
    capsys, vietnamese_profile, tmp_path
) -> None:
    source = tmp_path / "deck.csv"
    source.write_text("front,back\nq1,a1\n,empty\n", encoding="utf-8")
    output = tmp_path / "mine.md"
    code, out, _err = run(
        capsys, "--db", vietnamese_profile, "convert", str(source), "-o", str(output)
    )
    assert code == 0 and out.splitlines() == [
        f"đã ghi {output}: bộ thẻ mine, 1 thẻ (1 ghi chú có mặt trước hoặc mặt sau trống bị bỏ qua)",
        f"tiếp theo: kvdrill check {output} && kvdrill import {output}",
    ], out
    missing = tmp_path / "nowhere.md"
    code, out, err = run(capsys, "--db", vietnamese_profile, "check", str(missing))
    assert code == 1 and f"{missing}:1: không có tệp hay thư mục này" in out + err
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, out, _err = run(
        capsys, "--db", vietnamese_profile, "convert", str(source), "-o", str(output), "--force"
    )
    assert out.startswith(f"wrote {output}: pack mine, 1 card (1 note with an empty front or back")
    code, out, err = run(capsys, "--db", vietnamese_profile, "check", str(missing))
    assert f"{missing}:1: no such file or directory" in out + err


@pytest.mark.store
def test_an_import_claiming_another_files_pack_id_is_refused_in_vietnamese(
    capsys, vietnamese_profile, tmp_path
) -> None:
    from test_import_cli import write_pack

    first = write_pack(tmp_path / "a.md", "mine", {"one": "1"})
    second = write_pack(tmp_path / "b.md", "mine", {"two": "2"})
    assert run(capsys, "--db", vietnamese_profile, "import", str(first))[0] == 0
    code, _out, err = run(capsys, "--db", vietnamese_profile, "import", str(second))
    assert code == 1 and err.startswith(
        f"{second}:1: id bộ thẻ 'mine' đã được {first} dùng: hãy đặt cho bộ thẻ này một id riêng"
    ), err
    assert "already used" not in err


@pytest.mark.store
def test_an_imports_counts_read_in_the_learners_convention(
    capsys, vietnamese_profile, tmp_path
) -> None:
    """1.200 cards added, for a Vietnamese reader (1200 before: the store wrote bare counts);
    English groups them its way."""
    body = "".join(
        f"\n## Card {n} {{#c{n}}}\n\n### Prompt\n\nWhat is {n} + {n}?\n\n### Answer\n\n{2 * n}.\n"
        for n in range(1200)
    )
    pack = tmp_path / "many.md"
    pack.write_text(f"---\npack: many\ntitle: Many\nversion: 1\n---\n{body}", encoding="utf-8")
    code, out, err = run(capsys, "--db", vietnamese_profile, "import", str(pack), "--dry-run")
    assert code == 0, err
    assert "many: thêm 1.200," in out, out
    use_language("en")
    assert run(capsys, "--db", vietnamese_profile, "settings", "language", "en")[0] == 0
    code, out, err = run(capsys, "--db", vietnamese_profile, "import", str(pack), "--dry-run")
    assert code == 0, err
    assert "many: 1,200 added" in out, out
