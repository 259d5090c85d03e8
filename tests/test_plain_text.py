"""Card Markdown printed as plain text in plain mode, and counted nouns."""

from __future__ import annotations

from kvdrill.app.plain_text import markdown_to_plain, plural


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
    text = "- weights: **16 GB**\n- KV per token: __128 KiB__\n1. max_num_seqs is 256\n2 * 8 = 16"
    assert markdown_to_plain(text) == (
        "- weights: 16 GB\n- KV per token: 128 KiB\n1. max_num_seqs is 256\n2 * 8 = 16"
    )


def test_a_fence_closes_only_on_its_own_marker() -> None:
    markdown = "````text\n```\ninside\n````\nafter"
    assert markdown_to_plain(markdown) == "    ```\n    inside\nafter"


def test_an_unclosed_fence_keeps_its_text() -> None:
    assert markdown_to_plain("```\nleft open") == "    left open"


def test_plurals() -> None:
    assert [plural(n, "card") for n in (0, 1, 2)] == ["0 cards", "1 card", "2 cards"]
