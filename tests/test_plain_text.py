"""Card Markdown printed as plain text in plain mode, and counted nouns."""

from __future__ import annotations

import os
import subprocess
import sys

from kvdrill.app.plain_text import markdown_to_plain, terminal_width
from kvdrill.engine.wording import plural


def test_a_worked_solution_loses_its_fence_and_bold_markers() -> None:
    markdown = (
        "```text\n"
        "kv_bytes_per_token = 2 * layers * kv_heads * head_dim * bytes\n"
        "\n"
        "                   = 131,072 B\n"
        "```\n"
        "\n"
        "**Answer: 168 KiB**"
    )
    assert markdown_to_plain(markdown) == (
        "    kv_bytes_per_token = 2 * layers * kv_heads * head_dim * bytes\n"
        "\n"
        "                       = 131,072 B\n"
        "\n"
        "Answer: 168 KiB"
    )


def test_code_keeps_what_would_be_markup_outside_it() -> None:
    assert markdown_to_plain("~~~\n2**30 and __init__\n~~~") == "    2**30 and __init__"
    assert markdown_to_plain("Use `2**30` bytes, **not** `10**9`.") == (
        "Use 2**30 bytes, not 10**9."
    )


def test_lists_and_plain_words_stay_as_written() -> None:
    text = "- weights: **16 GB**\n- KV per token: __128 KiB__\n1. max_num_seqs is 256\n\n2 * 8 = 16"
    assert markdown_to_plain(text) == (
        "- weights: 16 GB\n- KV per token: 128 KiB\n1. max_num_seqs is 256\n\n2 * 8 = 16"
    )


def test_a_fence_closes_only_on_its_own_marker() -> None:
    markdown = "````text\n```\ninside\n````\nafter"
    assert markdown_to_plain(markdown) == "    ```\n    inside\nafter"


def test_an_unclosed_fence_keeps_its_text() -> None:
    assert markdown_to_plain("```\nleft open") == "    left open"


def test_plurals() -> None:
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
    assert plural(1.0, "byte", "1") == "1 byte" and plural(0.5, "byte") == "0.5 bytes"


def test_a_paragraph_is_reflowed_to_the_width_not_broken_where_the_source_was() -> None:
    markdown = (
        "The scheduler reserves KV blocks for every\n"
        "request in the batch, so **a long prompt\n"
        "blocks** the queue.\n"
        "\n"
        "- a list item written\n"
        "  over two lines\n"
        "- short"
    )
    text = markdown_to_plain(markdown, width=30)
    lines = text.splitlines()
    assert all(len(line) <= 30 for line in lines), text
    # Words stay whole, bold markers go even across a source line break.
    assert " ".join(text.split()) == (
        "The scheduler reserves KV blocks for every request in the batch, so a long prompt "
        "blocks the queue. - a list item written over two lines - short"
    )
    assert "- a list item written over two" in lines
    assert "  lines" in lines  # hung under the item's text
    assert "" in lines  # the paragraph break stays


def test_a_lead_starts_the_first_line_and_wrapped_lines_hang_under_it() -> None:
    text = markdown_to_plain("Name each factor as you multiply it, every time.", 30, "Tip: ")
    assert text.splitlines() == [
        "Tip: Name each factor as you",
        "     multiply it, every time.",
    ]


def test_a_long_code_line_breaks_at_a_space_and_keeps_its_indent() -> None:
    markdown = "```\nkv = 2 * layers * kv_heads * head_dim * bytes_per_element * tokens\n```"
    lines = markdown_to_plain(markdown, width=40).splitlines()
    assert lines[0].startswith("    kv = 2 *") and all(len(line) <= 40 for line in lines)
    assert all(line.startswith("        ") for line in lines[1:])


def test_the_width_is_columns_or_else_80_in_a_pipe(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert terminal_width() == 100
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    piped = subprocess.run(
        [
            sys.executable,
            "-c",
            "from kvdrill.app.plain_text import terminal_width as w; print(w())",
        ],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        check=True,
    )
    assert piped.stdout.strip() == "80"
