"""The analysis request of one answer (:func:`analysis_request`): the workload and constraints the dialog built, the
configurations named, and what the question asks beyond them (advisor.analysis computes the answer)."""

from __future__ import annotations

from advisor.analysis.request import AnalysisRequest, NamedConfig, QuotedClaim
from advisor.conversation.dialog.load import job_default_day, volume_rate
from advisor.conversation.dialog.machine import DialogState, cards_rented_at, coding_use, job_answer, prompt_fills
from advisor.conversation.reader.slots import Slots
from advisor.workload import Constraints, Workload


def named_configs(slots: Slots) -> tuple[NamedConfig, ...]:
    """The configurations the user named: the owned one first, then the candidates, each with the count said."""
    named = [NamedConfig(gpu=slots.existing.gpu, count=slots.existing.count, role="existing")] if slots.existing else []
    named += [NamedConfig(gpu=c.gpu, count=c.count, role="candidate", count_only=not c.text) for c in slots.candidates]
    return tuple(named)


def analysis_request(state: DialogState, workload: Workload, constraints: Constraints, *, intent: str = "other",
                     asks_users: bool = False, asks_need: bool = False, asks_speed: bool = False,
                     asks_context: bool = False, asks_batch: bool = False,
                     variants: tuple[tuple[str, str | int], ...] = (), asks_servers: bool = False,
                     asks_link: bool = False, asks_token_cost: bool = False, asks_why_count: bool = False,
                     engines: tuple[str, ...] = (), reference_method: str = "",
                     asks_cheapest: bool = False, asks_minimum: bool = False, asks_api: bool = False,
                     api_provider: str | None = None,
                     asks_monthly: bool = False, asks_fabric: bool = False, asks_cost: bool = False,
                     asks_kv_token: bool = False, asks_kv_capacity: bool = False, asks_tokens_per_day: bool = False,
                     asks_power: bool = False, asks_launch: bool = False,
                     asks_train_speed: bool = False, asks_mfu: bool = False, asks_full_load: bool = False,
                     asks_rps: bool = False, asks_p99: bool = False, asks_fits: bool = False, asks_oom: bool = False,
                     rate_period_s: int = 1, asks_e2e: bool = False, asks_plan: bool = False,
                     asks_ttft: bool = False, asks_speculation: bool = False, asks_chunked: bool = False,
                     asks_ttft_ladder: bool = False,
                     frameworks: tuple[str, ...] = (), tp_compared: tuple[int, ...] = (),
                     served_formats: bool = False) -> AnalysisRequest:
    """What the analysis of this turn reads from the slots, beside the workload and constraints built from them."""
    s = state.slots
    # GPUs said with no card ("on 2048 GPUs", "from 256 to 512 GPUs"); "a 24GB card": the card is that memory, not
    # the search's stand-in
    bare = bool(s.gpu_count) and not s.existing and not s.candidates and s.capacity is None and s.device is None
    return AnalysisRequest(
        workload=workload, constraints=constraints, named=named_configs(s),
        claim=QuotedClaim(text=s.claim.text, value=s.claim.value, unit=s.claim.unit, bytes_if_gib=s.claim.bytes_if_gib)
        if s.claim is not None else None,
        concurrency_avg=s.concurrency_avg,
        load_from=s.load_from if workload.task == "inference" and s.load_from != workload.concurrency else None,
        load_ladder=s.load_ladder if workload.task == "inference" and s.load_ladder else (),
        job_requests=s.job_requests if workload.task == "inference" else None,
        concurrency_given=s.concurrency is not None or s.qps is not None or s.headcount is not None
        or (s.batch is not None and workload.task == "inference") or volume_rate(s) is not None,
        offload_asked=bool(s.offload), wants_nvlink=bool(s.wants_nvlink), intent=intent, asks_users=asks_users,
        count_said=s.gpu_count if bare else None, count_said_to=s.gpu_count_to if bare else None,
        capacity_count=s.gpu_count if s.capacity is not None and s.gpu_count and 1 < s.gpu_count <= 1024
        and not s.existing and not s.candidates and s.device is None else None,  # "two 24GB cards"
        asks_context=asks_context, asks_batch=asks_batch, variants=variants, asks_servers=asks_servers, asks_link=asks_link,
        asks_fabric=asks_fabric, asks_kv_token=asks_kv_token, asks_kv_capacity=asks_kv_capacity, asks_tokens_per_day=asks_tokens_per_day,
        asks_power=asks_power, asks_launch=asks_launch, asks_train_speed=asks_train_speed, asks_mfu=asks_mfu,
        asks_full_load=asks_full_load, asks_rps=asks_rps, rate_period_s=rate_period_s, asks_p99=asks_p99,
        asks_e2e=asks_e2e, asks_plan=asks_plan, asks_ttft=asks_ttft, asks_speculation=asks_speculation,
        asks_chunked=asks_chunked, asks_ttft_ladder=asks_ttft_ladder,
        frameworks=frameworks, tp_compared=tp_compared, served_formats=served_formats,
        asks_fits=asks_fits, asks_oom=asks_oom,
        ttft_target_s=s.ttft_ms / 1000 if s.ttft_ms else None,
        asks_need=asks_need, asks_speed=asks_speed, asks_token_cost=asks_token_cost, stated=stated_fields(s),
        asks_why_count=asks_why_count, engines=engines, reference_method=reference_method, asks_cheapest=asks_cheapest,
        asks_minimum=asks_minimum, asks_api=asks_api, api_provider=api_provider, asks_monthly=asks_monthly,
        asks_cost=asks_cost,
        host_cloud=s.rent_at if constraints.candidates_pool and s.rent_at and cards_rented_at(s.rent_at) else None,
        inferred=(*(("concurrency",) if s.concurrency is None and (s.qps is not None or s.headcount) else ()),
                  *(("context",) if prompt_fills(s) else ()),
                  # a batch job of labels or translations with no answer length said (dialog.machine)
                  *((f"output_{kind}",) if (kind := job_answer(s)) else ()),
                  # no context said, a coding use: the coding tools' context (dialog.machine.CODING_CONTEXT)
                  *(("context_coding",) if s.context is None and not prompt_fills(s) and coding_use(s)
                    and workload.task == "inference" else ()),
                  # a batch job's day when no deadline was said (dialog.load.JOB_DEFAULT_DEADLINE_S)
                  *(("deadline",) if job_default_day(s) else ())))


def stated_fields(s: Slots) -> tuple[str, ...]:
    """The workload fields the conversation's messages stated (not defaults): their numbers are "user input". A
    concurrency computed from a request rate is inferred, not stated (`AnalysisRequest.inferred`)."""
    said = {"context": s.context, "concurrency": s.concurrency,
            "weights": s.weights, "task": s.task, "prompt_tokens": s.prompt_tokens, "output_tokens": s.output_tokens,
            "train_tokens": s.train_tokens, "kv": s.kv, "engine": s.engine}
    return tuple(name for name, value in said.items() if value is not None)
