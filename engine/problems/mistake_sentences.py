"""The sentences that name a mistake: one per diagnosis code, in the variant's own numbers.

``SENTENCES`` holds the sentences that need no number (a rule's fixed sentence, or one for a
generator-supplied alternative of engine/problems/diagnosis_context.py); the functions below
word the ones that show numbers. The rules that decide which mistake an answer shows are in
engine/problems/diagnosis_rules.py and engine/problems/diagnosis.py; this module only words them.
"""

from __future__ import annotations

from kvdrill.engine.capacity.units import format_number
from kvdrill.i18n import N_, _, ngettext

UNIT_DEFINITIONS = {
    "kb_vs_kib": "1 KiB = 1024 B, 1 kB = 1000 B",
    "mb_vs_mib": "1 MiB = 1024² B = 1.049 MB",
    "gb_vs_gib": "1 GiB = 2³⁰ B = 1.074 GB",
    "tb_vs_tib": "1 TiB = 2⁴⁰ B = 1.1 TB",
    "bits_vs_bytes": N_("1 B = 8 bits"),
}

# Sentences by code, for generator-supplied alternatives and the rules that need no numbers;
# marked here, translated where shown (``sentence``).
SENTENCES = {
    "kv_factor_2": N_(
        "You left out the factor 2 for K and V: every layer caches a key and a value."
    ),
    "mla_factor_2": N_(
        "MLA caches one compressed latent per layer, so there is no factor 2 for K and V."
    ),
    "attention_heads": N_("You used the attention heads; the KV cache holds only the KV heads."),
    "tp_missing": N_("You left out tensor parallelism: the work is split over the TP GPUs."),
    "tp_wrong": N_("You applied the tensor-parallel size the wrong way."),
    "tp_replication": N_("With TP above the KV head count, each GPU keeps a whole KV head."),
    "dtype_bytes": N_("You used the wrong number of bytes per value for the precision."),
    "block_rounding": N_("You left out the rounding to whole KV blocks."),
    "weights_not_subtracted": N_("You forgot to subtract the weights from the GPU memory."),
    "utilization_missing": N_("You left out the GPU memory utilization (gpu_memory_utilization)."),
    "sliding_window": N_(
        "Sliding-window layers keep only the window's tokens, not the whole context."
    ),
    "active_vs_total": N_("You mixed up active and total parameters of the MoE model."),
    "rounded_up": N_("You rounded up: a request that does not fit is not served."),
    "rounded_down": N_(
        "You are one short: a part still needs a whole one (a partly filled block, a fraction "
        "of a GPU or replica), and keep whatever the question adds on top, such as a spare."
    ),
    "gpus_missing": N_("You left out the GPU count: the answer is for all the GPUs, not one."),
    "scales_missing": N_(
        "You left out the quantization scales: a 4-bit checkpoint stores them on top of the "
        "4 bits (one 16-bit scale per 128 weights is 0.125 bit more per weight)."
    ),
    "gib_read_as_gb": N_("You read a size given in GiB as GB: 1 GiB = 2³⁰ B = 1.074 GB."),
    "gb_read_as_gib": N_("You read a size given in GB as GiB: 1 GiB = 2³⁰ B = 1.074 GB."),
}

# Names of the base units a bare number may have been worked out in, by dimension.
BASE_UNIT_NAMES = {
    frozenset({("[information]", 1)}): N_("bytes"),
    frozenset({("[time]", 1)}): N_("seconds"),
    frozenset({("[information]", 1), ("[time]", -1)}): N_("bytes per second"),
}


def sentence(code: str) -> str:
    """The sentence of ``code`` (a key of ``SENTENCES``) in the learner's language."""
    return _(SENTENCES[code])


def _definition(code: str) -> str:
    return _(UNIT_DEFINITIONS[code])


def times(ratio: float) -> str:
    """'8 times too large' / '2 times too small' for a ratio of answer to truth."""
    if ratio >= 1:
        return _("{factor} times too large").format(factor=format_number(ratio, 3))
    return _("{factor} times too small").format(factor=format_number(1 / ratio, 3))


def prefix_ratio_sentence(code: str, ratio: float) -> str:
    return _(
        "Your answer is off by {ratio}, the gap between decimal and binary units ({definition})."
    ).format(ratio=format_number(ratio, 4), definition=_definition(code))


def bits_vs_bytes_sentence(found: float) -> str:
    return _("Your answer is {times}: you mixed bits and bytes ({definition}).").format(
        times=times(found), definition=_definition("bits_vs_bytes")
    )


def attention_heads_sentence(heads: float, kv_heads: float) -> str:
    return _(
        "You used the {heads} attention heads; the KV cache holds only the {kv_heads} KV heads."
    ).format(heads=format_number(heads), kv_heads=format_number(kv_heads))


def tp_missing_sentence(tp: float) -> str:
    return _("You left out tensor parallelism: the work is split over {tp} GPUs.").format(
        tp=format_number(tp)
    )


def tp_wrong_sentence(tp: float) -> str:
    return _(
        "You applied the tensor-parallel size {tp} the wrong way (twice, multiplied instead "
        "of divided, or past the KV head count)."
    ).format(tp=format_number(tp))


def gpus_missing_sentence(gpus: float) -> str:
    return _("You left out the GPU count: the answer is for all {gpus} GPUs, not one.").format(
        gpus=format_number(gpus)
    )


def dtype_bytes_sentence(wrong: float, dtype: object, size: float) -> str:
    """``wrong`` bytes per value taken where the precision ``dtype`` (a name, if known) has
    ``size``."""
    # Exactly one is singular; 0.5 bytes is plural, as in engine/wording.py.
    taken = ngettext("{count} byte", "{count} bytes", 1 if wrong == 1 else 2).format(
        count=format_number(wrong)
    )
    if isinstance(dtype, str) and dtype:
        return _("You used {taken} per value; {dtype} takes {size}.").format(
            taken=taken, dtype=dtype, size=format_number(size)
        )
    return _("You used {taken} per value; the precision takes {size}.").format(
        taken=taken, size=format_number(size)
    )


def factor_1000_sentence(found: float) -> str:
    return _("Your answer is {times}: check the prefixes (k, M, G; ms against s).").format(
        times=times(found)
    )


def factor_1024_sentence(found: float) -> str:
    return _("Your answer is {times}: one binary prefix step (KiB, MiB, GiB) is off.").format(
        times=times(found)
    )


def near_miss_sentence(found: float, tolerance: float) -> str:
    return _(
        "Your answer is {off}% off, outside the {tolerance}% tolerance: keep more digits "
        "until the last step."
    ).format(
        off=format_number(abs(found - 1) * 100, 2), tolerance=format_number(tolerance * 100, 2)
    )


def unit_slip_sentence(code: str, sibling_unit: str, typed_unit: str, truth_typed: float) -> str:
    """The number typed is the answer in ``sibling_unit``; in ``typed_unit`` it is
    ``truth_typed``."""
    return _(
        "Your number is the answer in {sibling}, not {typed}: in {typed} it is {value} "
        "({definition})."
    ).format(
        sibling=sibling_unit,
        typed=typed_unit,
        value=format_number(truth_typed),
        definition=_definition(code),
    )


def bare_base_unit_sentence(base: str, unit: str, expected: str) -> str:
    """A bare number that is the answer in the base unit ``base`` (a ``BASE_UNIT_NAMES`` name),
    read in the asked ``unit``; ``expected`` is the answer as it should be written."""
    return _(
        "Your number is the answer in {base}, but it was read in {unit}: write {expected}, "
        "or put the unit after the number."
    ).format(base=_(base), unit=unit, expected=expected)


def known_mistake_sentence(code: object) -> str:
    """For an alternative code with no sentence of its own."""
    return _("Your answer matches a known mistake ({code}).").format(code=code)
