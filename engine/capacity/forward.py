"""Forward evaluation of the formula catalog without sympy: symbols, catalog inputs, values.

``kvdrill calc`` and the problem generator evaluate formulas through here; the functions are
plain Python generated from the sympy expressions (engine/capacity/formula_code.py), so this
module imports neither sympy nor pint. engine/capacity/formulas.py holds the sympy expressions
(solving, ``--explain``) and re-exports everything below; its docstring is the API reference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from functools import cache

from kvdrill.engine.capacity.catalog import (
    GpuSpec,
    ModelSpec,
    close_matches,
    get_dtype,
    get_gpu,
    get_model,
    models,
    quoted,
)
from kvdrill.engine.capacity.formula_code import FUNCTIONS, SIGNATURES
from kvdrill.engine.capacity.units import format_number
from kvdrill.engine.errors import UserError
from kvdrill.i18n import N_, _


@dataclass(frozen=True)
class Symbol:
    name: str
    unit: str
    description: str
    integer: bool = False
    can_be_zero: bool = False


_SYMBOL_TABLE: tuple[Symbol, ...] = (
    # Architecture (from the model catalog)
    Symbol("layers", "dimensionless", N_("transformer layers (blocks)"), True),
    Symbol("heads", "dimensionless", N_("attention (query) heads"), True),
    Symbol("kv_heads", "dimensionless", N_("key/value heads (fewer than heads under GQA)"), True),
    Symbol("head_dim", "dimensionless", N_("dimension of one attention head"), True),
    Symbol("hidden", "dimensionless", N_("hidden size (model width)"), True),
    Symbol("intermediate", "dimensionless", N_("dense MLP (intermediate) size"), True),
    Symbol("vocab", "dimensionless", N_("vocabulary size"), True),
    Symbol(
        "tied",
        "dimensionless",
        N_("1 if the LM head shares the embedding matrix, else 0"),
        True,
        True,
    ),
    Symbol(
        "qkv_bias",
        "dimensionless",
        N_("1 if the Q, K, V projections have a bias, else 0"),
        True,
        True,
    ),
    Symbol(
        "experts",
        "dimensionless",
        N_("routed experts per MoE layer (0 for a dense model)"),
        True,
        True,
    ),
    Symbol("active_experts", "dimensionless", N_("routed experts each token uses"), True, True),
    Symbol("shared_experts", "dimensionless", N_("experts every token uses"), True, True),
    Symbol("expert_intermediate", "dimensionless", N_("MLP size of one expert"), True, True),
    Symbol(
        "dense_layers",
        "dimensionless",
        N_("layers with a dense MLP (all of a dense model)"),
        True,
        True,
    ),
    Symbol("kv_lora_rank", "dimensionless", N_("MLA: width of the cached KV latent"), True),
    Symbol(
        "rope_dim",
        "dimensionless",
        N_("MLA: decoupled RoPE key width, cached with the latent"),
        True,
    ),
    Symbol("q_lora_rank", "dimensionless", N_("MLA: width of the query latent"), True),
    Symbol("qk_nope_dim", "dimensionless", N_("MLA: per-head query/key width without RoPE"), True),
    Symbol("v_head_dim", "dimensionless", N_("MLA: per-head value width"), True),
    Symbol("window", "token", N_("sliding-window length"), True),
    Symbol("sliding_layers", "dimensionless", N_("layers that use the sliding window"), True),
    # Precision
    Symbol("kv_dtype_bytes", "byte", N_("bytes per KV cache element (BF16 2, FP8 1)")),
    Symbol("new_kv_dtype_bytes", "byte", N_("bytes per KV element after the change (FP8 1)")),
    Symbol("weight_bits", "dimensionless", N_("bits per weight (BF16 16, FP8 8, 4-bit 4)")),
    Symbol(
        "scale_bits",
        "dimensionless",
        N_("extra bits per weight for quantization scales"),
        False,
        True,
    ),
    Symbol("new_weight_bits", "dimensionless", N_("bits per weight after quantizing")),
    Symbol(
        "unquantized_bits",
        "dimensionless",
        N_(
            "bits of the weights a quantized checkpoint keeps wide (16 in vLLM's FP8/W8A8); "
            "setting it counts embeddings, LM head and norms apart"
        ),
    ),
    # Deployment
    Symbol(
        "tp",
        "dimensionless",
        N_("tensor-parallel GPUs (the whole node for sessions_that_fit)"),
        True,
    ),
    Symbol("gpu_mem", "byte", N_("memory of one GPU as vLLM sees it (catalog: the logged total)")),
    Symbol("gpu_util", "dimensionless", N_("vLLM gpu_memory_utilization (fraction of gpu_mem)")),
    Symbol("new_gpu_util", "dimensionless", N_("gpu_memory_utilization after the change")),
    Symbol(
        "overhead_bytes",
        "byte",
        N_("per-GPU activation peak and non-torch memory (default 1.5 GiB)"),
        False,
        True,
    ),
    Symbol("hbm_bandwidth", "byte/s", N_("memory bandwidth of one GPU")),
    Symbol("block_size", "token", N_("tokens per KV cache block (vLLM default 16)"), True),
    Symbol("seq_tokens", "token", N_("tokens in one sequence (prompt + output)"), True),
    Symbol("request_tokens", "token", N_("final tokens of one request (prompt + output)"), True),
    Symbol("max_model_len", "token", N_("vLLM max_model_len: longest request admitted"), True),
    Symbol(
        "max_num_batched_tokens",
        "token",
        N_(
            "vLLM max_num_batched_tokens: tokens one scheduler step may take (the chunked-prefill "
            "budget; a sliding-window layer keeps window - 1 + this many)"
        ),
        True,
    ),
    Symbol("prompt_tokens", "token", N_("tokens in one prompt (prefilled at once)"), True),
    Symbol(
        "peak_flops",
        "FLOP/s",
        N_("dense peak FLOP/s of one GPU in the compute dtype (FP8 for fp8 weights, else BF16)"),
    ),
    Symbol("activation_bytes", "byte", N_("bytes per activation element all-reduced (BF16 2)")),
    Symbol("draft_tokens", "dimensionless", N_("tokens the draft proposes per step (k)"), True),
    Symbol(
        "acceptance_rate",
        "dimensionless",
        N_("chance the target accepts one draft token (a, below 1)"),
        False,
        True,
    ),
    Symbol("arrival_rate", "request/s", N_("requests arriving per second")),
    Symbol("latency", "s", N_("mean time a request spends in the system (end to end)")),
    Symbol(
        "gpus", "dimensionless", N_("GPUs serving (all replicas and their tensor-parallel ranks)")
    ),
    Symbol("price_per_gpu_hour", "USD", N_("dollars one GPU costs per hour")),
    Symbol("tokens_per_second", "token/s", N_("tokens all those GPUs produce per second")),
    # Derived quantities (outputs of formulas, inputs of others)
    Symbol("attention_params", "dimensionless", N_("attention parameters in one layer"), True),
    Symbol("model_params", "dimensionless", N_("total parameters"), True),
    Symbol("active_params", "dimensionless", N_("parameters used per token"), True),
    Symbol(
        "unquantized_params",
        "dimensionless",
        N_("embedding, LM-head and norm parameters (left unquantized by FP8/INT8 checkpoints)"),
        True,
    ),
    Symbol("weight_bytes", "byte", N_("bytes of all the weights")),
    Symbol("kv_bytes_per_token", "byte", N_("KV cache bytes one token takes on one GPU")),
    Symbol("kv_bytes_per_sequence", "byte", N_("KV cache bytes of one sequence on one GPU")),
    Symbol("decode_floor_time", "s", N_("lower bound of one decode step: weights read once")),
    Symbol("kv_pool_bytes", "byte", N_("KV cache pool of one GPU")),
    Symbol("kv_pool_tokens", "token", N_("tokens the KV pool holds")),
    Symbol("max_concurrency", "dimensionless", N_("vLLM's 'Maximum concurrency' start-up figure")),
    Symbol("requests_that_fit", "request", N_("requests that fit at their final length"), True),
    Symbol("extra_kv_tokens", "token", N_("KV tokens gained by raising gpu_memory_utilization")),
    Symbol("sessions_that_fit", "request", N_("full-length sessions that fit on a node"), True),
    Symbol("kv_dtype_gain_tokens", "token", N_("KV tokens gained by a smaller KV cache dtype")),
    Symbol("weight_quant_gain_tokens", "token", N_("KV tokens gained by quantizing the weights")),
    Symbol("prefill_flops", "FLOP", N_("FLOPs to prefill one prompt (weights only, no attention)")),
    Symbol("decode_flops_per_token", "FLOP", N_("FLOPs to decode one token (weights only)")),
    Symbol("ridge_point", "FLOP/byte", N_("FLOP per HBM byte where a kernel turns compute-bound")),
    Symbol("prefill_time_floor", "s", N_("lower bound of a prefill: its FLOPs at dense peak")),
    Symbol("critical_batch", "dimensionless", N_("decode batch where weight reads and math tie")),
    Symbol(
        "speculative_expected_tokens", "token", N_("tokens one speculative step yields on average")
    ),
    Symbol(
        "littles_law_concurrency", "request", N_("requests in flight on average (Little's law)")
    ),
    Symbol("cost_per_million_tokens", "USD", N_("dollars per million tokens generated")),
    Symbol(
        "tp_allreduce_bytes_per_token",
        "byte",
        N_("bytes each GPU sends per token in TP all-reduces"),
    ),
)
SYMBOLS: dict[str, Symbol] = {s.name: s for s in _SYMBOL_TABLE}

ALIASES: dict[str, str] = {
    "pool": "kv_pool_bytes",
    "pool_bytes": "kv_pool_bytes",
    "pool_tokens": "kv_pool_tokens",
    "kv_per_token": "kv_bytes_per_token",
    "kv_per_seq": "kv_bytes_per_sequence",
    "weights": "weight_bytes",
    "params": "model_params",
    "mem": "gpu_mem",
    "memory": "gpu_mem",
    "util": "gpu_util",
    "new_util": "new_gpu_util",
    "bandwidth": "hbm_bandwidth",
    "overhead": "overhead_bytes",
    "context": "seq_tokens",
    "seq_len": "seq_tokens",
    "tokens_per_request": "request_tokens",
    "bits": "weight_bits",
    "n_layers": "layers",
    "num_kv_heads": "kv_heads",
}


# Formula names (variants included) in catalog order, and the distinct quantities they compute.
FORMULA_NAMES: tuple[str, ...] = tuple(SIGNATURES)
QUANTITIES: tuple[str, ...] = tuple(dict.fromkeys(output for output, _ in SIGNATURES.values()))


def output_of(name: str) -> str:
    """The quantity formula ``name`` computes (``kv_bytes_per_token_mla`` -> ``kv_bytes_per_token``)."""
    return SIGNATURES[name][0]


def inputs_of(name: str) -> tuple[str, ...]:
    """The input symbols of formula ``name``, in SYMBOLS order."""
    return SIGNATURES[name][1]


def formula_name(name: str) -> str:
    """The catalog name of a formula as typed (case, ``-`` for ``_``); UserError if unknown."""
    key = name.strip().lower().replace("-", "_")
    if key not in SIGNATURES:
        raise UserError(
            _("unknown quantity {quantity}{hint}").format(
                quantity=quoted(name), hint=close_matches(key, list(SIGNATURES), LISTED)
            )
        )
    return key


# Derived inputs, in the order inputs_from computes them.
_DERIVED = (
    "attention_params",
    "model_params",
    "active_params",
    "unquantized_params",
    "weight_bytes",
    "kv_bytes_per_token",
    "kv_pool_bytes",
    "kv_pool_tokens",
    "ridge_point",
    "prefill_flops",
)

DEFAULTS: dict[str, float] = {
    "gpu_util": 0.9,  # vLLM's default in most releases; name it in a question
    # vLLM's activation peak plus non-torch memory per GPU: a round figure above single-GPU
    # logs (1.25 and 1.31 GiB); NCCL raises it under TP. decks/sources/README.md cites them.
    # Set it from your own profiling run.
    "overhead_bytes": 1.5 * 2**30,
    "block_size": 16,
    # `vllm serve` on a GPU of at least 70 GiB other than an A100, vLLM v0.8 to v0.27 (2,048
    # below that; the offline LLM class 16,384): see decks/sources/README.md. Name it in a question.
    "max_num_batched_tokens": 8192,
    "new_kv_dtype_bytes": 1,  # FP8
    "new_weight_bits": 8,
    "tp": 1,
    "activation_bytes": 2,  # BF16 activations, also under FP8 or 4-bit weights
}
# Defaults that hold only for some vLLM releases (decks/sources/README.md): a claim whose value
# rests on one of them says which releases (``vllm=``), or sets the symbol itself.
VERSIONED_DEFAULTS: dict[str, str] = {"max_num_batched_tokens": "0.8-0.27"}


# Where an error sends a user whose name is close to nothing (the catalog is too long to list).
LISTED = N_("kvdrill calc --list shows them all")


def canonical_symbol(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    key = ALIASES.get(key, key)
    if key not in SYMBOLS:
        choices = list(SYMBOLS) + list(ALIASES)
        raise UserError(
            _("unknown symbol {symbol}{hint}").format(
                symbol=quoted(name), hint=close_matches(key, choices, LISTED)
            )
        )
    return key


def variant_for(
    quantity: str, model: ModelSpec | None = None, inputs: Mapping[str, float] | None = None
) -> str:
    """The formula that computes ``quantity`` for this model (MLA and sliding-window variants)."""
    known = inputs or {}
    if quantity in SIGNATURES and output_of(quantity) != quantity:
        return quantity  # already a specific variant
    mla = model.mla is not None if model else "kv_lora_rank" in known
    swa = model.sliding_window is not None if model else "sliding_layers" in known
    if mla and f"{quantity}_mla" in SIGNATURES:
        return f"{quantity}_mla"
    if "unquantized_bits" in known and f"{quantity}_mixed" in SIGNATURES:
        return f"{quantity}_mixed"
    if swa and f"{quantity}_swa" in SIGNATURES:
        return f"{quantity}_swa"
    return quantity


def _missing(name: str, inputs: Mapping[str, float]) -> list[str]:
    return [s for s in inputs_of(name) if s not in inputs]


def missing_inputs(
    name: str, inputs: Mapping[str, float], model: ModelSpec | None = None
) -> list[str]:
    """The base symbols still needed to evaluate ``name``, looking through derived quantities."""
    needed: list[str] = []
    for symbol in _missing(formula_name(name), inputs):
        if symbol in _DERIVED:
            deeper = missing_inputs(variant_for(symbol, model, inputs), inputs, model)
            needed.extend(deeper or [symbol])
        else:
            needed.append(symbol)
    return list(dict.fromkeys(needed))


def evaluate(name: str, inputs: Mapping[str, float]) -> float:
    """The formula's value for these inputs (SI base units), from its generated function."""
    name = formula_name(name)
    symbols = inputs_of(name)
    try:
        args = [inputs[s] for s in symbols]
    except KeyError:
        missing = ", ".join(_missing(name, inputs))
        raise UserError(
            _("{output} needs {missing}: set them or pick a model/GPU").format(
                output=name, missing=missing
            )
        ) from None
    try:
        return float(FUNCTIONS[name](*args))
    except ZeroDivisionError:
        zeros = ", ".join(s for s in symbols if inputs[s] == 0)
        raise UserError(
            _("{output} cannot be computed: it divides by {zeros} = 0").format(
                output=name, zeros=zeros or _("zero")
            )
        ) from None
    except (OverflowError, ValueError):
        raise UserError(
            _("{output} cannot be computed from these inputs: a number is out of range").format(
                output=name
            )
        ) from None


def default_kv_dtype(dtype: str) -> str:
    """vLLM's kv_cache_dtype "auto": the activations' dtype, 16-bit even for 8/4-bit weights."""
    weights = get_dtype(dtype)
    return weights.name if weights.bits >= 16 else "bf16"


def inputs_from(
    model: str | ModelSpec | None = None,
    gpu: str | GpuSpec | None = None,
    dtype: str = "bf16",
    kv_dtype: str | None = None,
    tp: int = 1,
    overrides: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Symbol values (SI base units) from catalog entries, precisions, defaults and overrides."""
    spec = get_model(model) if isinstance(model, str) else model
    card = get_gpu(gpu) if isinstance(gpu, str) else gpu
    weights = get_dtype(dtype)
    kv_dtype = kv_dtype or default_kv_dtype(dtype)
    values: dict[str, float] = dict(DEFAULTS)
    values.update(
        tp=tp,
        weight_bits=weights.bits,
        scale_bits=weights.scale_bits,
        kv_dtype_bytes=get_dtype(kv_dtype).bytes,
    )
    if spec is not None:
        from_catalog = models().get(spec.id) is spec
        values.update(_catalog_model_values(spec.id) if from_catalog else _model_values(spec))
    if card is not None:
        values.update(
            gpu_mem=card.visible_memory_bytes,
            hbm_bandwidth=card.bandwidth_bytes_per_s,
            peak_flops=card.peak_flops(weights.name),
        )
    for name, value in (overrides or {}).items():
        values[canonical_symbol(name)] = float(value)
    if spec is not None:
        _refuse_what_vllm_refuses(spec, values, overrides or {})
    given = set(values)
    for quantity in _DERIVED:
        if quantity in given:
            continue
        name = variant_for(quantity, spec, values)
        if not _missing(name, values):
            values[quantity] = evaluate(name, values)
    return values


def _refuse_what_vllm_refuses(
    spec: ModelSpec, values: Mapping[str, float], overrides: Mapping[str, float]
) -> None:
    """A deployment vLLM would not start is an error, not a figure (TP, max_model_len)."""
    tp = values["tp"]
    refusal = spec.tp_refusal(int(tp)) if tp >= 1 and float(tp).is_integer() else None
    asked_len = {canonical_symbol(k): v for k, v in overrides.items()}.get("max_model_len")
    if refusal is None and asked_len is not None:
        refusal = spec.max_model_len_refusal(asked_len)
    if refusal:
        raise UserError(refusal)


@cache
def _catalog_model_values(model_id: str) -> dict[str, float]:
    return _model_values(models()[model_id])


def _model_values(spec: ModelSpec) -> dict[str, float]:
    values: dict[str, float] = {
        "layers": spec.layers,
        "heads": spec.heads,
        "kv_heads": spec.kv_heads,
        "head_dim": spec.head_dim,
        "hidden": spec.hidden,
        "intermediate": spec.intermediate,
        "vocab": spec.vocab,
        "tied": int(spec.tied_embeddings),
        "qkv_bias": int(spec.qkv_bias),
        "experts": 0,
        "active_experts": 0,
        "shared_experts": 0,
        "expert_intermediate": 0,
        "dense_layers": spec.layers,
    }
    if spec.moe:
        values.update(asdict(spec.moe))
    if spec.mla:
        values.update(asdict(spec.mla))
    if spec.sliding_window:
        values.update(window=spec.sliding_window.window)
        values.update(sliding_layers=spec.sliding_window.sliding_layers)
    if spec.max_context:
        values["max_model_len"] = spec.max_context
    return values


_BINARY = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def humanize(value: float, unit: str, number: Callable[[float], str] = format_number) -> str:
    """A display form: bytes in binary units (and GB), seconds in ms/us, counts with commas.
    ``number`` writes each figure (the app passes the reader's convention for a result shown
    for reading); the default is the engineering form an answer is typed in."""
    if unit == "byte":
        for suffix, size in _BINARY:
            if abs(value) >= size:
                text = f"{number(value / size)} {suffix}"
                return f"{text} ({number(value / 1e9)} GB)" if size >= 2**30 else text
        return f"{number(value)} B"
    if unit == "s":
        if abs(value) < 1e-3:
            return f"{number(value * 1e6)} us"
        return f"{number(value * 1e3)} ms" if abs(value) < 1 else f"{number(value)} s"
    if unit == "byte/s":
        return f"{number(value / 1e12)} TB/s"
    if unit in ("FLOP", "FLOP/s"):
        prefixes = (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6))
        prefix, scale = next(((p, n) for p, n in prefixes if abs(value) >= n), ("", 1.0))
        return f"{number(value / scale)} {prefix}{unit}"
    if unit == "FLOP/byte":
        return f"{number(value)} FLOP/byte"
    if unit in ("request/s", "token/s"):
        return f"{number(value)} {unit.replace('/', 's/')}"
    if unit in ("token", "request"):
        return f"{number(value)} {unit}s"
    if abs(value) >= 1e9:
        return f"{number(value)} ({number(value / 1e9)} B)"
    return number(value)
