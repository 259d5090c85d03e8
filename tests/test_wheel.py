"""The built wheel works anywhere: installed into a fresh virtual environment outside the
repository and run from another directory, it finds its bundled decks and catalogs.

The rest of the suite runs an editable install, which cannot notice a file left out of the
wheel; this test builds the wheel from the checkout and uses nothing else of it.
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with only the built wheel in it, and beside it only the
    distributions the wheel declares (and theirs), taken from the test environment: a module the
    wheel leaves out, or a dependency pyproject.toml does not declare, fails to import."""
    build = tmp_path_factory.mktemp("wheel")
    # Build from a clean copy: setuptools leaves build/ behind in the source tree, and a stale
    # build/lib there could slip a deleted module into the wheel.
    source = tmp_path_factory.mktemp("source") / "kvdrill"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
        ),
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(build), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = build.glob("kvdrill-*.whl")
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.create(env_dir)
    python = env_dir / "bin" / "python"
    # This pip installs into the new environment: no pip there, and no index read.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + ["--no-index", "--no-compile", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = next((env_dir / "lib").glob("python*/site-packages"))
    deps = env_dir / "deps"
    _link_distributions(_declared_closure(wheel), deps)
    (site / "kvdrill-deps.pth").write_text(f"{deps}\n")
    return env_dir / "bin"


def _declared_closure(wheel: Path) -> list[metadata.Distribution]:
    """The test environment's distributions the wheel's Requires-Dist names, with what they
    require in turn (markers evaluated; extras followed)."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        wanted = email.message_from_bytes(archive.read(name)).get_all("Requires-Dist") or []
    todo = [(Requirement(line), "") for line in wanted]
    seen: set[tuple[str, str]] = set()
    found: dict[str, metadata.Distribution] = {}
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(requirement.name)
        dist = found.setdefault(key, metadata.distribution(requirement.name))
        for wanted_extra in {""} | requirement.extras:
            if (key, wanted_extra) not in seen:
                seen.add((key, wanted_extra))
                todo += [(Requirement(line), wanted_extra) for line in dist.requires or []]
    return list(found.values())


def _link_distributions(dists: list[metadata.Distribution], into: Path) -> None:
    """Links each distribution's top-level files (packages, modules, metadata) into ``into``."""
    into.mkdir()
    for dist in dists:
        assert dist.files is not None, f"{dist.metadata['Name']} lists no files"
        tops = {f.parts[0] for f in dist.files if f.parts[0] not in ("..", "__pycache__")}
        for top in tops - {t for t in tops if t.endswith(".pth")}:
            link = into / top
            if not link.exists():
                link.symlink_to(Path(str(dist.locate_file(top))))


def run(bin_dir: Path, tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KVDRILL_")}
    env["KVDRILL_DATA_DIR"] = str(tmp_path / "data")
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [str(bin_dir / "kvdrill"), *args],
        cwd=tmp_path,  # not the checkout: nothing may be found beside the code
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_wheel_contents(installed: Path) -> None:
    site = next((installed.parent / "lib").glob("python*/site-packages"))
    top_levels = {
        p.name
        for p in site.iterdir()
        if not p.name.endswith((".dist-info", ".pth"))
        and p.name not in {"__pycache__", "_distutils_hack", "pip", "setuptools", "pkg_resources"}
    }
    assert "kvdrill" in top_levels
    assert not {"app", "engine", "store", "decks"} & top_levels
    decks = site / "kvdrill" / "decks"
    assert sorted(p.name for p in decks.glob("*.md") if p.name != "README.md") == sorted(
        p.name for p in (ROOT / "decks").glob("*.md") if p.name != "README.md"
    )
    license_files = list(site.glob("kvdrill-*.dist-info/licenses/LICENSE"))
    assert license_files, "the LICENSE file is not in the wheel"


def test_version(installed: Path, tmp_path: Path) -> None:
    result = run(installed, tmp_path, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith("kvdrill ")
    assert result.stdout.strip() != "kvdrill 0+unknown"


def test_calc_uses_the_shipped_catalog(installed: Path, tmp_path: Path) -> None:
    result = run(
        installed,
        tmp_path,
        "calc",
        "kv_bytes_per_token",
        "--model",
        "llama-3.1-8b",
        "--unit",
        "KiB",
    )
    assert result.returncode == 0, result.stderr
    assert "128" in result.stdout


def test_check_a_bundled_deck(installed: Path, tmp_path: Path) -> None:
    site = next((installed.parent / "lib").glob("python*/site-packages"))
    deck = site / "kvdrill" / "decks" / "memory-and-capacity.md"
    result = run(installed, tmp_path, "check", str(deck))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_plain_drill_shows_a_bundled_card(installed: Path, tmp_path: Path) -> None:
    result = run(
        installed,
        tmp_path,
        "drill",
        "--plain",
        "--limit",
        "1",
        "--pack",
        "memory-and-capacity",
        stdin="\n4\n",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    titles = [
        line.split("{#")[0].removeprefix("## ").strip()
        for line in (ROOT / "decks" / "memory-and-capacity.md").read_text().splitlines()
        if line.startswith("## ")
    ]
    words = " ".join(result.stdout.split())  # plain mode re-flows text to 80 columns
    assert any(title in words for title in titles), result.stdout


def test_the_vietnamese_catalog_ships_in_the_wheel(installed: Path, tmp_path: Path) -> None:
    program = (
        "from kvdrill.app.services.language import use_language; use_language('vi'); "
        "from kvdrill.i18n import _; print(_('Correct.'))"
    )
    result = subprocess.run(
        [str(installed / "python"), "-c", program],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Đúng."


def test_every_package_folder_is_listed_in_pyproject() -> None:
    """pyproject.toml lists the packages by hand (the root is mapped to ``kvdrill``)."""
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {
        "kvdrill." + ".".join(path.parent.relative_to(ROOT).parts)
        for top in ("app", "engine", "store", "decks", "i18n")
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders - listed == set(), "add these to [tool.setuptools] packages"
    assert listed - folders - {"kvdrill"} == set(), "these are listed but do not exist"
