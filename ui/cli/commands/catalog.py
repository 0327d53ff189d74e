"""`gpu-advisor gpus` and `gpu-advisor models`: the catalogs as tables or JSON, and `show ID` with every field
and the sources it comes from.

    gpu-advisor gpus [--json] [--region cn] [--min-memory GB]
    gpu-advisor gpus show ID [--json]
    gpu-advisor models [--json]
    gpu-advisor models show ID [--json]

Units: memory in GiB (2^30 bytes; a vendor's "80 GB" HBM card holds 80 GiB), bandwidth in TB/s (10^12 B/s),
compute in dense TFLOPS (10^12 FLOP/s, FP32 accumulate). JSON keeps SI units (bytes, bytes/s, FLOP/s, W).
Imports only the knowledge package: no Gradio, LangChain or Slack.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.quantities import Bytes, in_unit
from knowledge.structs import dump, fields
from ui.cli import jsonout
from ui.cli.args import number

if TYPE_CHECKING:
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec

# GPU fields shown in `show`, with a unit formatter; others are printed as they are
_GPU_UNITS = {
    "memory_bytes": lambda v: f"{in_unit(v, 'GiB'):g} GiB ({v:,} bytes)",
    "bandwidth_bytes_per_s": lambda v: f"{v / 1e12:g} TB/s",
    "bf16_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (BF16/FP16, FP32 accumulate)",
    "fp16_acc_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (FP16, FP16 accumulate)",
    "fp8_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (FP8)",
    "fp8_fp16_acc_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (FP8, FP16 accumulate)",
    "fp4_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (FP4)",
    "tf32_dense_flops": lambda v: f"{v / 1e12:g} TFLOPS dense (TF32)",
    "int8_dense_ops": lambda v: f"{v / 1e12:g} TOPS dense (INT8)",
    "fp32_flops": lambda v: f"{v / 1e12:g} TFLOPS (FP32, non-tensor)",
    "tdp_w": lambda v: f"{v:g} W",
    "nvlink_bytes_per_s": lambda v: f"{v / 1e9:g} GB/s total, both directions" if v else "none",
}
_CHINA_STATUS = {"available": "available", "restricted": "restricted", "licence_required": "licence required",
                 "china_variant": "China variant", "not_sold": "not sold"}


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("target", nargs="*", metavar="show ID",
                        help=f"`show ID` prints every field of one {name[:-1]} with its sources")
    parser.add_argument("--json", action="store_true", help="machine-readable output (SI units)")
    if name == "gpus":
        parser.add_argument("--region", choices=["cn", "global"], default="global",
                            help="cn: add China-market status (dated) and substitutes")
        parser.add_argument("--min-memory", type=number(), metavar="GB", default=None,
                            help="only GPUs with at least this much memory (GiB, the vendor's nominal GB)")


def run(args: argparse.Namespace) -> int:
    kind = args.command  # "gpus" or "models"
    target = list(args.target)
    catalog = load_catalog()
    if target:
        if target[0] == "show":
            target = target[1:]
        if len(target) != 1:
            raise InputError(f"usage: gpu-advisor {kind} show ID (one id or alias, quoted if it has spaces)",
                             field="ID")
        if kind == "gpus":
            gpu = catalog.gpu(target[0])
            _emit(_gpu_detail(gpu, catalog), args.json, lambda d: _gpu_show_text(gpu, catalog))
        else:
            model = catalog.model(target[0])
            _emit(_model_detail(model, catalog), args.json, lambda d: _model_show_text(model, catalog))
        return 0
    if kind == "gpus":
        gpus = list(catalog.gpus)
        if args.min_memory is not None:
            if args.min_memory < 0:
                raise InputError(f"--min-memory must be a non-negative size in GB, got {args.min_memory:g}",
                                 field="--min-memory")
            gpus = [g for g in gpus if g.memory >= Bytes.of(args.min_memory, "GiB")]
        gpus.sort(key=lambda g: (g.memory_bytes, g.bf16_dense_flops))
        rows = [_gpu_row(g, args.region) for g in gpus]
        _emit(rows, args.json, lambda _: _gpu_table(gpus, args.region))
    else:
        # start-up: only `models` counts parameters; `gpus` loads no knowledge.params
        from knowledge.params import param_counts

        models = sorted(catalog.models, key=lambda m: param_counts(m).total)
        _emit([_model_row(m) for m in models], args.json, lambda _: _model_table(models))
    return 0


def _emit(data: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    out = jsonout.dumps(data) if as_json else text(data)
    sys.stdout.write(out + "\n")


# --- GPUs ----------------------------------------------------------------------------------------------------

def _gpu_row(g: GpuSpec, region: str = "global") -> dict[str, Any]:
    row = {
        "id": g.id, "name": g.name, "aliases": list(g.aliases), "vendor": g.vendor, "architecture": g.architecture,
        "segment": g.segment, "memory_bytes": g.memory_bytes, "bandwidth_bytes_per_s": g.bandwidth_bytes_per_s,
        "bf16_dense_flops": g.bf16_dense_flops, "fp16_acc_dense_flops": g.fp16_acc_dense_flops,
        "fp8_dense_flops": g.fp8_dense_flops, "int8_dense_ops": g.int8_dense_ops, "fp32_flops": g.fp32_flops,
        "tdp_w": g.tdp_w, "nvlink_bytes_per_s": g.nvlink_bytes_per_s, "link_kind": g.link_kind,
        "pcie_gen": g.pcie_gen, "interface": g.interface, "modded": g.modded,
        "software_stack": g.stack, "machine": g.is_machine,
        "unified_memory": dump(g.unified_memory, json=True) if g.unified_memory else None,
        "china": dump(g.china, json=True, exclude={"source"}),
        "prices": [dump(p, json=True) for p in g.prices],
        "cloud": [dump(c, json=True) for c in g.cloud],
    }
    return row


def _gpu_detail(g: GpuSpec, catalog: Catalog) -> dict[str, Any]:
    data = dump(g, json=True)
    used = {s for ids in g.cite.values() for s in ids} | set(g.china.source)
    used |= {p.source for p in g.prices} | {c.source for c in g.cloud}
    data["sources"] = {sid: dump(catalog.source(sid), json=True, exclude_none=True) for sid in sorted(used)}
    return data


def _price_text(g: GpuSpec) -> str:
    parts = []
    for cur, sym in (("USD", "US$"), ("CNY", "¥")):
        p = g.price(cur)
        if p:
            parts.append(f"{sym}{p.amount:,.0f} ({p.date:%Y-%m})")
    return ", ".join(parts) or "-"


def _width(text: str) -> int:
    """Display width: CJK characters take two terminal columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> str:
    widths = [max(_width(h), *(_width(r[i]) for r in rows)) if rows else _width(h) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(_pad(c, w, i in right) for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _gpu_table(gpus: list[GpuSpec], region: str) -> str:
    headers = ["ID", "NAME", "MEM GiB", "BW TB/s", "BF16 TFLOPS", "FP8 TFLOPS", "TDP W", "NVLINK GB/s", "PRICE (as of)"]
    if region == "cn":
        headers += ["CHINA (as of)", "SUBSTITUTE"]
    rows = []
    for g in gpus:
        row = [g.id, g.name, f"{g.memory.gib:g}", f"{g.bandwidth_bytes_per_s / 1e12:.2f}",
               f"{g.bf16_dense_flops / 1e12:.1f}", f"{g.fp8_dense_flops / 1e12:.1f}" if g.fp8_dense_flops else "-",
               f"{g.tdp_w:.0f}", f"{g.nvlink_bytes_per_s / 1e9:g}" if g.nvlink_bytes_per_s else "-", _price_text(g)]
        if region == "cn":
            c = g.china
            status = _CHINA_STATUS[c.status]
            if c.restricted_since:
                status += f" since {c.restricted_since}"
            row += [f"{status} ({c.as_of})", c.china_substitute or "-"]
        rows.append(row)
    note = ("BF16/FP8: dense tensor TFLOPS (no sparsity), FP32 accumulate; FP16 where a card has no BF16. "
            "Memory in GiB; NVLink total both directions.")
    if region == "cn":
        note += " China-market status is a dated fact from the cited sources, not legal advice."
    return _table(headers, rows, {2, 3, 4, 5, 6, 7}) + f"\n\n{len(gpus)} GPUs. {note}"


def _gpu_show_text(g: GpuSpec, catalog: Catalog) -> str:
    lines = [f"{g.name}  [{g.id}]", f"aliases: {', '.join(g.aliases) or '-'}", ""]
    for name in fields(type(g)):
        if name in ("id", "name", "aliases", "china", "prices", "cloud", "cite", "notes", "basis", "estimated",
                    "unified_memory", "software_stack"):
            continue
        value = getattr(g, name)
        if value is None:
            continue
        shown = _GPU_UNITS[name](value) if name in _GPU_UNITS else str(value)
        if name in g.estimated:
            shown += "  (estimate)"
        src = g.cite.get(name)
        lines.append(f"{name:26} {shown}" + (f"   [{', '.join(src)}]" if src else ""))
    # start-up: only `gpus show` lists the engines of a card's stack
    from rules.stacks import engines_on

    lines.append(f"{'software_stack':26} {g.stack} (engines: {', '.join(engines_on(g.stack))})")
    u = g.unified_memory
    if u is not None:
        lines += ["", f"Unified memory: {in_unit(u.total_bytes, 'GiB'):g} GiB pool; the GPU gets {in_unit(u.gpu_bytes, 'GiB'):g} GiB by "
                      f"default — {u.gpu_rule}" + (f"; up to {in_unit(u.max_gpu_bytes, 'GiB'):g} GiB" if u.max_gpu_bytes else ""),
                  f"  raise it: {u.setting}   [{', '.join(u.source)}]" if u.setting else f"  [{', '.join(u.source)}]"]
    c = g.china
    lines += ["", f"China market (as of {c.as_of}):",
              f"  status: {_CHINA_STATUS[c.status]}" + (f" since {c.restricted_since}" if c.restricted_since else "")]
    if c.built_for_china:
        lines.append("  built for the China market" + (f" (variant of {c.china_variant_of})" if c.china_variant_of else ""))
    if c.china_substitute:
        lines.append(f"  China substitute: {c.china_substitute}" + (f" (all variants: {', '.join(c.substitutes)})" if c.substitutes else ""))
    lines.append(f"  {c.note}   [{', '.join(c.source)}]")
    if g.prices:
        lines += ["", "Prices (per card):"]
        for p in sorted(g.prices, key=lambda p: p.date):
            lines.append(f"  {p.amount:>12,.0f} {p.currency}  {p.date}  {p.kind:12} {p.note}   [{p.source}]")
    if g.cloud:
        lines += ["", "Cloud rental (USD per GPU-hour):"]
        for c2 in sorted(g.cloud, key=lambda c: c.usd_per_hour):
            lines.append(f"  {c2.usd_per_hour:>8.2f}  {c2.provider:10} {c2.tier:10} {c2.date}  {c2.note}   [{c2.source}]")
    if g.basis:
        lines += ["", f"Compute figures: {g.basis}"]
    if g.notes:
        lines.append(f"Notes: {g.notes}")
    lines += ["", "Sources:"]
    for sid, body in _gpu_detail(g, catalog)["sources"].items():
        lines.append(f"  [{sid}] {body['title']}  {body.get('url') or body.get('document', '')}")
    return "\n".join(lines)


# --- models --------------------------------------------------------------------------------------------------

def _model_row(m: ModelSpec) -> dict[str, Any]:
    # start-up: only `models` counts parameters; `gpus` loads no knowledge.params
    from knowledge.params import param_counts

    counts = param_counts(m)
    return {
        "id": m.id, "name": m.name, "aliases": list(m.aliases), "family": m.family, "hf_repo": m.hf_repo,
        "hf_repo_chat": m.hf_repo_chat,
        "params": counts.total, "active_params": counts.active, "hidden_size": m.hidden_size,
        "num_layers": m.num_layers, "num_attention_heads": m.num_attention_heads, "num_kv_heads": m.num_kv_heads,
        "head_dim": m.head_dim, "intermediate_size": m.intermediate_size, "vocab_size": m.vocab_size,
        "max_context": m.max_context, "native_dtype": m.native_dtype, "moe": m.is_moe, "mla": m.is_mla,
        "sliding_window": m.sliding_window,
    }


def _model_detail(m: ModelSpec, catalog: Catalog) -> dict[str, Any]:
    # start-up: only `models` counts parameters; `gpus` loads no knowledge.params
    from knowledge.params import param_counts

    counts = param_counts(m)
    data = dump(m, json=True)
    data["params"] = counts.total
    data["active_params"] = counts.active
    data["params_by_group"] = counts.by_group
    used = {s for ids in m.cite.values() for s in ids}
    data["sources"] = {sid: dump(catalog.source(sid), json=True, exclude_none=True) for sid in sorted(used)}
    return data


def _billions(n: int) -> str:
    if n >= 1e9:
        return f"{n / 1e9:,.2f}B"
    return f"{n / 1e6:,.0f}M" if n >= 1e7 else f"{n / 1e6:,.2f}M"


def _model_table(models: list[ModelSpec]) -> str:
    # start-up: only `models` counts parameters; `gpus` loads no knowledge.params
    from knowledge.params import param_counts

    headers = ["ID", "NAME", "PARAMS", "ACTIVE", "LAYERS", "HIDDEN", "HEADS/KV", "CONTEXT", "DTYPE", "ATTENTION"]
    rows = []
    for m in models:
        c = param_counts(m)
        attention = "MLA" if m.is_mla else ("MHA" if m.num_kv_heads == m.num_attention_heads else "GQA")
        if m.sliding_window:
            local = "CHUNK" if m.local_attention == "chunked" else "SWA"
            attention += f"+{local}{m.sliding_window}" + ("/2" if m.sliding_window_layers == "alternate" else
                                                          f" {m.num_layers - m.global_layers}:{m.global_layers}"
                                                          if m.sliding_window_layers == "pattern" else "")
        if m.linear_attention is not None:
            attention += f"+linear {m.linear_layers}:{m.global_layers}"
        rows.append([m.id, m.name, _billions(c.total), _billions(c.active) if m.is_moe else "=", str(m.num_layers),
                     str(m.hidden_size), f"{m.num_attention_heads}/{m.num_kv_heads}", f"{m.max_context:,}",
                     m.native_dtype, attention + (" MoE" if m.is_moe else "")])
    return _table(headers, rows, {2, 3, 4, 5, 7}) + (
        f"\n\n{len(models)} models. PARAMS computed from the architecture (knowledge/params.py); "
        "ACTIVE: per token for MoE models.")


def _model_show_text(m: ModelSpec, catalog: Catalog) -> str:
    # start-up: only `models` counts parameters; `gpus` loads no knowledge.params
    from knowledge.params import param_counts

    c = param_counts(m)
    arch_src = ", ".join(m.cite.get("architecture", []))
    lines = [f"{m.name}  [{m.id}]", f"aliases: {', '.join(m.aliases) or '-'}", f"hf_repo: {m.hf_repo or '-'}"
             + (f" (chat: {m.hf_repo_chat})" if m.hf_repo_chat else ""), "",
             f"parameters (computed): {c.total:,} ({_billions(c.total)})"
             + (f", active per token {c.active:,} ({_billions(c.active)})" if m.is_moe else "")]
    if m.published_params:
        exact = "exact" if m.published_params_exact else ("nominal" if m.published_params_nominal else "rounded")
        lines.append(f"published: {m.published_params_text or m.published_params} ({exact})"
                     f"   [{', '.join(m.cite.get('published_params', []))}]")
    lines.append("by group: " + ", ".join(f"{k} {_billions(v)}" for k, v in c.by_group.items()))
    lines += ["", f"architecture   [{arch_src}]"]
    skip = {"id", "name", "aliases", "hf_repo", "hf_repo_chat", "cite", "notes", "published_params", "published_params_exact",
            "published_params_nominal", "published_params_text", "published_params_buffers",
            "published_non_embedding_params", "published_active_params"}
    for name in fields(type(m)):
        value = getattr(m, name)
        if name in skip or value is None:
            continue
        lines.append(f"  {name:24} {value}")
    if m.notes:
        lines += ["", f"Notes: {m.notes}"]
    lines += ["", "Sources:"]
    for sid, body in _model_detail(m, catalog)["sources"].items():
        lines.append(f"  [{sid}] {body['title']}  {body.get('url') or body.get('document', '')}")
    return "\n".join(lines)


# Public names for the MCP server and the HTTP API (ui/api/service.py), which return these same rows.
gpu_row = _gpu_row
gpu_detail = _gpu_detail
model_row = _model_row
model_detail = _model_detail
