"""Attention data-parallel (DP attention) for MLA models: DeepSeek-V2/V3/R1 and Kimi K2 keep one latent KV head
that tensor parallelism copies to every GPU, so 8-way TP holds the same cache 8 times; SGLang's --enable-dp-attention
and vLLM's --data-parallel-size with --enable-expert-parallel give each GPU only its own requests' cache
[sglang-dp-attention, vllm-data-parallel]. vLLM's recipes measured 7.7× the KV capacity of TP 8 with DP 8 on 8× B200
(vllm-recipes-762-dp8). The recommender tries it after plain TP in a server and before a pipeline across servers."""

from __future__ import annotations

import json

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.memory import estimate_memory
from advisor.estimator.throughput import estimate_throughput
from advisor.recommend.recommender import recommend
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.structs import replace
from tests.answer_text import answer


def first_paragraph(text: str) -> str:
    return text.split("\n\n")[0]

CAT = load_catalog()
DSV3 = CAT.model("deepseek-v3")
H200 = CAT.gpu("h200-sxm")
GIB = 2**30


def _serving(model: str, **kw: object) -> Workload:
    return Workload(model=model, context=32768, concurrency=50, gpus=8, tp=8, **kw)


def test_each_gpu_caches_only_its_own_sequences() -> None:
    """DeepSeek-V3's latent is kv_lora_rank 512 + rope 64 values per token and layer, 61 layers, 2 bytes (its
    config.json): under TP 8 every GPU holds all 50 × 32,768 tokens (107 GiB); with DP attention the fullest GPU holds
    ⌈50 / 8⌉ = 7 sequences."""
    per_token = (512 + 64) * 61 * 2
    tp = estimate_memory(DSV3, _serving("deepseek-v3"), H200)
    dp = estimate_memory(DSV3, _serving("deepseek-v3", attention_dp=True), H200)
    assert tp.per_gpu.kv_cache.n == 50 * 32768 * per_token
    assert dp.per_gpu.kv_cache.n == 7 * 32768 * per_token
    assert not tp.fits(H200) and dp.fits(H200)


def test_every_gpu_keeps_all_but_the_routed_experts() -> None:
    """The price of DP attention: the attention, the dense and shared-expert MLPs and the embedding/output head are
    whole on each GPU (vLLM's data-parallel ranks are replicas but for the expert layers), so the weights per GPU
    grow by 7/8 of that non-expert part, and still stay well below the whole model / 4."""
    tp = estimate_memory(DSV3, _serving("deepseek-v3"), H200).per_gpu.weights.n
    dp = estimate_memory(DSV3, _serving("deepseek-v3", attention_dp=True), H200).per_gpu.weights.n
    whole = estimate_memory(DSV3, Workload(model="deepseek-v3"), None).per_gpu.weights.n
    assert tp < dp < whole / 4
    # DeepSeek-V3's non-expert parameters are about 16–17 B of 671 B (3 dense layers, 58 shared experts, MLA,
    # embeddings); in FP8 with 16-bit embeddings that is 15–22 GiB whole on each GPU
    assert 13 * GIB < (dp - tp) * 8 / 7 < 23 * GIB


def test_a_gqa_model_and_engines_without_it_are_refused_with_one_line() -> None:
    qwen = CAT.model("qwen3-235b-a22b")
    with pytest.raises(InputError) as err:
        estimate_memory(qwen, Workload(model=qwen.id, gpus=8, tp=8, attention_dp=True), H200)
    assert err.value.field == "attention_dp" and "MLA" in str(err.value)
    with pytest.raises(InputError) as err:
        estimate_memory(DSV3, _serving("deepseek-v3", attention_dp=True, engine="transformers"), H200)
    assert err.value.field == "attention_dp"


def test_capacity_grows_and_a_lone_user_is_slower() -> None:
    """More sequences fit (each GPU's pool holds its own), while one user's step reads the whole attention on every
    GPU where TP reads an eighth of it: the trade-off that keeps plain TP first for a light load."""
    calib = load_calibration()
    w = Workload(model="deepseek-v3", context=8192, concurrency=1, gpus=8, tp=8)
    tp = estimate_throughput(DSV3, H200, 8, w, calib)
    dp = estimate_throughput(DSV3, H200, 8, replace(w, attention_dp=True), calib)
    assert tp.capacity is not None and dp.capacity is not None
    assert dp.capacity.max_concurrency > 5 * tp.capacity.max_concurrency
    assert dp.tpot.s > tp.tpot.s


def test_fifty_users_at_32k_fit_one_h200_server() -> None:
    """The question people ask: 50 users of DeepSeek-V3 at 32k on H200 is one 8-GPU server with DP attention (SGLang
    lists 8× H200 for DeepSeek-V3 FP8), not two servers in a pipeline."""
    rec = recommend(Workload(model="deepseek-v3", context=32768, concurrency=50),
                    Constraints(candidates=["h200-sxm"]))
    top = rec.options[0]
    assert top.count == 8 and top.layout.attention_dp and top.layout.pp == 1
    contract = top.layout.to_contract()
    assert contract["attention_dp"] is True
    assert "--data-parallel-size 8 --enable-expert-parallel" in top.launch_hint
    assert "--max-num-seqs 7" in top.launch_hint  # vLLM's limit is per DP rank: ⌈50 / 8⌉
    assert "sizing-dp-attention" in {f.rule_id for f in top.findings}


def test_a_light_load_keeps_plain_tensor_parallelism() -> None:
    rec = recommend(Workload(model="deepseek-v3", context=4096, concurrency=1), Constraints(candidates=["h200-sxm"]))
    top = rec.options[0]
    assert top.count == 8 and not top.layout.attention_dp
    assert "attention_dp" not in top.layout.to_contract()


def test_a_dense_model_never_gets_it() -> None:
    rec = recommend(Workload(model="qwen2.5-72b", context=32768, concurrency=50), Constraints(candidates=["h200-sxm"]))
    assert all(not o.layout.attention_dp for o in rec.options)


def test_sglang_launch_line() -> None:
    rec = recommend(Workload(model="deepseek-v3", context=32768, concurrency=50, engine="sglang"),
                    Constraints(candidates=["h200-sxm"]))
    top = rec.options[0]
    assert top.layout.attention_dp
    assert "--tp 8 --dp 8 --enable-dp-attention" in top.launch_hint


@pytest.mark.parametrize("lang,question", [
    ("en", "Serve DeepSeek-V3 to 50 users with 32k context on H200s. How many GPUs?"),
    ("en", "how many h200 do we need so 50 concurrent users can chat with deepseek r1 at 32k tokens each"),
    ("zh", "DeepSeek-V3 用 H200 服务 50 个用户，32k 上下文，要几张卡？"),
])
def test_the_answer_says_one_server_and_names_the_layout(lang: str, question: str) -> None:
    head = first_paragraph(answer(question, lang))
    assert "8× NVIDIA H200" in head, head
    assert ("注意力数据并行" in head) if lang == "zh" else ("DP attention" in head), head


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from ui.cli.entry import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_cli_takes_it_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """`estimate` and `throughput` take --attention-dp on; the throughput JSON's layout says it and the engine's
    start-up figure counts the whole group's tokens (about 5× TP 8's here, the replicated attention taken off)."""
    base = ("throughput", "--model", "deepseek-v3", "--gpu", "h200-sxm", "--count", "8", "--context", "32768",
            "--concurrency", "8", "--json")
    code, out, err = _cli(capsys, *base, "--attention-dp", "on")
    assert code == 0, err
    dp = json.loads(out)
    code, out, err = _cli(capsys, *base)
    tp = json.loads(out)
    assert dp["layout"]["attention_dp"] is True and "attention_dp" not in tp["layout"]
    assert 4 < dp["engine_memory"]["kv_tokens"] / tp["engine_memory"]["kv_tokens"] < 8
    code, out, err = _cli(capsys, "estimate", "--model", "qwen2.5-72b", "--gpus", "8", "--tp", "8", "--attention-dp", "on")
    assert code != 0 and "MLA" in err and "Traceback" not in err
