"""The catalog: coverage of the guides' cards, alias resolution, data rules, and one-line errors for bad data."""

from __future__ import annotations

import datetime as dt
import shutil
import time
from pathlib import Path

import pytest
import yaml

from knowledge.catalog import DATA_ENV, PACKAGE_DATA, build_catalog, clear_cache, load_catalog, normalize
from knowledge.errors import AdvisorError, CatalogError, UnknownGpu, UnknownModel

GiB = 2**30


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


# --- coverage ---------------------------------------------------------------------------------------------------

# every card either guide names, spelled as the guides spell it, and the current market
GUIDE_CARDS = {
    "2080 11G": "rtx-2080ti", "2080ti": "rtx-2080ti", "2080ti 22G": "rtx-2080ti-22g", "3060": "rtx-3060",
    "3090": "rtx-3090", "4080": "rtx-4080", "RTX 4090": "rtx-4090", "4090D": "rtx-4090d", "RTX 5080": "rtx-5080",
    "RTX 5090": "rtx-5090", "RTX 5090D": "rtx-5090d", "A6000": "rtx-a6000", "A10": "a10", "T4": "t4", "L20": "l20",
    "L40": "l40", "L40S": "l40s", "A100 40G": "a100-40g-pcie", "A100 40GB SXM4": "a100-40g-sxm",
    "A100 80GB": "a100-80g-sxm", "A100 80GB PCIe": "a100-80g-pcie", "A800": "a800-80g-sxm", "H100 PCIe": "h100-pcie",
    "H100 SXM": "h100-sxm", "H100 NVL": "h100-nvl", "H800": "h800-sxm", "H20": "h20", "H200": "h200-sxm",
    "B200": "b200", "MI300X": "mi300x", "RTX 6000 Ada": "rtx-6000-ada", "L4": "l4", "V100": "v100-32g-sxm2",
}


def test_catalog_sizes(cat):
    assert len(cat.gpus) >= 40
    assert len(cat.models) >= 30
    assert len({g.id for g in cat.gpus}) == len(cat.gpus)


@pytest.mark.parametrize("typed,gpu_id", sorted(GUIDE_CARDS.items()))
def test_every_guide_card_is_in_the_catalog(cat, typed, gpu_id):
    assert cat.gpu(typed).id == gpu_id


# --- alias resolution -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("typed,gpu_id", [
    ("4090", "rtx-4090"), ("RTX4090", "rtx-4090"), ("rtx_4090", "rtx-4090"), ("NVIDIA GeForce RTX 4090", "rtx-4090"),
    ("ＲＴＸ４０９０", "rtx-4090"),  # full-width input from a Chinese IME
    ("a100 80g", "a100-80g-sxm"), ("A100-SXM4-80GB", "a100-80g-sxm"), ("2080ti 22g", "rtx-2080ti-22g"),
    ("魔改2080ti", "rtx-2080ti-22g"), ("2080Ti 22G 魔改", "rtx-2080ti-22g"), ("4090D", "rtx-4090d"),
    ("h100 sxm5", "h100-sxm"), ("Tesla T4", "t4"), ("h20", "h20"), ("H20 141GB", "h20-141g"),
])
def test_gpu_aliases(cat, typed, gpu_id):
    assert cat.gpu(typed).id == gpu_id


@pytest.mark.parametrize("typed,model_id", [
    ("llama2-70b", "llama-2-70b"), ("Llama-2-70B-chat", "llama-2-70b"), ("llama 2 70b", "llama-2-70b"),
    ("meta-llama/Llama-2-70b-chat-hf", "llama-2-70b"), ("qwen2.5 72b", "qwen2.5-72b"),
    ("qwen2.5-72b-instruct", "qwen2.5-72b"), ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"), ("千问2.5 72b", "qwen2.5-72b"),
    ("通义千问2.5-7B", "qwen2.5-7b"), ("deepseek-r1", "deepseek-r1"), ("DeepSeek R1 满血版", "deepseek-r1"),
    ("DeepSeek V3", "deepseek-v3"), ("deepseek-ai/DeepSeek-V3", "deepseek-v3"), ("deepseek-r1:32b", "deepseek-r1-distill-qwen-32b"),
    ("Meta-Llama-3-8B-Instruct", "llama-3-8b"), ("llama3.1:70b", "llama-3.1-70b"), ("Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"),
    ("百川2-13B", "baichuan2-13b"), ("gpt-2", "gpt2"), ("GLM-4-9B-Chat", "glm-4-9b"),
])
def test_model_aliases(cat, typed, model_id):
    assert cat.model(typed).id == model_id


@pytest.mark.parametrize("bare", ["70B", "7b", "13B", "72b"])
def test_bare_sizes_are_not_model_aliases(cat, bare):
    assert cat.find_model(bare) is None


def test_unknown_gpu_suggests_close_names(cat):
    with pytest.raises(UnknownGpu) as info:
        cat.gpu("rtx 4091")
    assert "did you mean" in str(info.value)
    assert "rtx 4090" in info.value.suggestions or "rtx-4090" in info.value.suggestions
    assert isinstance(info.value, AdvisorError)
    assert "是不是" in info.value.localized("zh")


def test_unknown_model_suggests_close_names(cat):
    with pytest.raises(UnknownModel) as info:
        cat.model("llama-2-71b")
    assert any("llama" in s for s in info.value.suggestions)


def test_normalize_ignores_case_spaces_underscores_dashes():
    assert normalize("RTX 4090") == normalize("rtx-4090") == normalize("rtx_4090") == "rtx4090"


# --- data rules -----------------------------------------------------------------------------------------------

def test_memory_is_binary_gib_of_the_nominal_size(cat):
    assert cat.gpu("a100-80g-sxm").memory_bytes == 80 * GiB
    assert cat.gpu("rtx-4090").memory_bytes == 24 * GiB
    assert cat.gpu("rtx-2080ti-22g").memory_bytes == 22 * GiB
    assert cat.gpu("h200-sxm").memory_bytes == 141 * GiB


def test_dense_fp32_accumulate_figures_not_sparse_or_fp32(cat):
    # the three numbers the guides get wrong (DESIGN.md "Known errors")
    assert cat.gpu("h100-pcie").bf16_dense_flops == pytest.approx(756e12, rel=1e-3)
    assert cat.gpu("h100-sxm").bf16_dense_flops == pytest.approx(989.4e12, rel=1e-3)
    g = cat.gpu("rtx-4090")
    assert g.bf16_dense_flops == pytest.approx(165.2e12, rel=1e-3)
    assert g.fp16_acc_dense_flops == pytest.approx(330.3e12, rel=1e-3)
    assert g.fp32_flops == pytest.approx(82.6e12, rel=1e-3)


def test_geforce_fp32_accumulate_is_half_the_fp16_accumulate_rate(cat):
    checked = 0
    for g in cat.gpus:
        if g.segment == "consumer" and g.fp16_acc_dense_flops:
            assert g.fp16_acc_dense_flops == pytest.approx(2 * g.bf16_dense_flops, rel=0.01), g.id
            checked += 1
    assert checked >= 10


def test_datacenter_fp8_is_twice_bf16_never_sparse(cat):
    # A sparse figure stored as the dense peak would show up as fp8 == bf16 or bf16 > 2x the known dense value.
    for g in cat.gpus:
        if g.fp8_dense_flops and g.segment == "datacenter" and g.vendor == "NVIDIA":
            assert g.fp8_dense_flops == pytest.approx(2 * g.bf16_dense_flops, rel=0.02), g.id


def test_blackwell_consumer_cards(cat):
    for gid in ("rtx-5080", "rtx-5090", "rtx-5090d"):
        assert cat.gpu(gid).architecture == "blackwell"
    assert cat.gpu("rtx-4090").architecture == "ada"


def test_nvlink_facts(cat):
    assert cat.gpu("rtx-4090").nvlink_bytes_per_s == 0
    assert cat.gpu("rtx-3090").nvlink_bytes_per_s == pytest.approx(112.5e9)
    assert cat.gpu("rtx-3090").link_kind == "nvlink-bridge"
    assert cat.gpu("h100-sxm").nvlink_bytes_per_s == pytest.approx(900e9)
    assert cat.gpu("h800-sxm").nvlink_bytes_per_s == pytest.approx(400e9)
    assert cat.gpu("a800-80g-sxm").nvlink_bytes_per_s == pytest.approx(400e9)


def test_china_market_facts_are_dated(cat):
    oct17 = dt.date(2023, 10, 17)
    for gid in ("a800-40g-pcie", "a800-80g-pcie", "a800-80g-sxm", "h800-sxm", "h800-pcie"):
        c = cat.gpu(gid).china
        assert c.status == "restricted" and c.restricted_since == oct17 and c.built_for_china, gid
    for gid in ("h20", "l20", "rtx-4090d", "rtx-5090d", "rtx-5090d-v2"):
        assert cat.gpu(gid).china.built_for_china, gid
    subs = {"a100-80g-sxm": "a800-80g-sxm", "l40": "l20", "h100-sxm": "h800-sxm", "rtx-5090": "rtx-5090d-v2",
            "rtx-4090": "rtx-4090d"}
    for gid, sub in subs.items():
        assert cat.gpu(gid).china.china_substitute == sub
    assert "h20" in cat.gpu("h100-sxm").china.substitutes
    assert cat.gpu("rtx-4090").china.restricted_since == oct17
    for g in cat.gpus:
        assert g.china.as_of and g.china.source


def test_prices_are_dated_and_in_usd_or_cny(cat):
    n = 0
    for g in cat.gpus:
        for p in g.prices:
            assert p.currency in ("USD", "CNY") and p.date.year >= 2018, g.id
            n += 1
    assert n >= 25
    a800 = cat.gpu("a800-80g-sxm").price("CNY")
    assert a800 is not None and a800.amount < 200_000  # a card, not the guide's "1.7M CNY"


def test_cloud_prices_are_dated_and_cited(cat):
    priced = [g for g in cat.gpus if g.cloud]
    assert len(priced) >= 8
    for g in priced:
        for c in g.cloud:
            assert c.usd_per_hour > 0 and c.date.year >= 2024 and c.source in cat.sources


def test_every_citation_resolves(cat):
    for g in cat.gpus:
        for ids in g.cite.values():
            assert all(i in cat.sources for i in ids)
    for m in cat.models:
        for ids in m.cite.values():
            assert all(i in cat.sources for i in ids)


def test_load_catalog_is_cached_and_fast():
    # the build's CPU time (process_time: other processes on a loaded CI box do not count), best of three builds
    spent = []
    for _ in range(3):
        clear_cache()
        t0 = time.process_time()
        first = load_catalog()
        spent.append(time.process_time() - t0)
        assert load_catalog() is first
    assert min(spent) < 1.5, f"catalog build took {min(spent):.3f} s of CPU"


# --- bad data: one line naming the file and the field ----------------------------------------------------------

@pytest.fixture()
def data_copy(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, root)
    return root


def _edit(path: Path, **changes):
    data = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


def _error(root: Path) -> str:
    with pytest.raises(CatalogError) as info:
        build_catalog(root)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def test_bad_field_type_names_file_and_field(data_copy):
    _edit(data_copy / "gpus" / "rtx-4090.yaml", tdp_w="lots")
    msg = _error(data_copy)
    assert "gpus/rtx-4090.yaml" in msg and "tdp_w" in msg


def test_bad_nested_field_names_dotted_path(data_copy):
    path = data_copy / "gpus" / "a800-80g-sxm.yaml"
    data = yaml.safe_load(path.read_text())
    data["china"]["status"] = "banned"
    path.write_text(yaml.safe_dump(data))
    msg = _error(data_copy)
    assert "a800-80g-sxm.yaml" in msg and "china.status" in msg


def test_unknown_field_is_rejected(data_copy):
    _edit(data_copy / "models" / "llama-2-7b.yaml", hidden_dim=4096)
    msg = _error(data_copy)
    assert "llama-2-7b.yaml" in msg and "hidden_dim" in msg and "unknown field" in msg


def test_missing_citation_is_rejected(data_copy):
    path = data_copy / "gpus" / "t4.yaml"
    data = yaml.safe_load(path.read_text())
    del data["cite"]["tdp_w"]
    path.write_text(yaml.safe_dump(data))
    msg = _error(data_copy)
    assert "t4.yaml" in msg and "tdp_w" in msg


def test_unresolved_citation_is_rejected(data_copy):
    path = data_copy / "gpus" / "t4.yaml"
    data = yaml.safe_load(path.read_text())
    data["cite"]["tdp_w"] = ["no-such-source"]
    path.write_text(yaml.safe_dump(data))
    msg = _error(data_copy)
    assert "t4.yaml" in msg and "cite.tdp_w" in msg and "no-such-source" in msg


def test_duplicate_alias_across_files_is_rejected(data_copy):
    path = data_copy / "gpus" / "l4.yaml"
    data = yaml.safe_load(path.read_text())
    data["aliases"].append("RTX-4090")
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    msg = _error(data_copy)
    assert "gpus/l4.yaml" in msg and "gpus/rtx-4090.yaml" in msg and "unique" in msg


def test_id_must_equal_file_stem(data_copy):
    _edit(data_copy / "gpus" / "t4.yaml", id="tesla-t4")
    msg = _error(data_copy)
    assert "t4.yaml" in msg and "'id'" in msg


def test_invalid_yaml_names_file_and_line(data_copy):
    (data_copy / "models" / "gpt2.yaml").write_text("id: gpt2\nname: [unclosed\n")
    msg = _error(data_copy)
    assert "models/gpt2.yaml" in msg and "line" in msg


def test_duplicate_source_id_across_team_files(data_copy):
    (data_copy / "sources" / "zz-other-team.yaml").write_text("ref-tpu:\n  title: again\n  url: https://example.org\n")
    msg = _error(data_copy)
    assert "ref-tpu" in msg and "sources/gpus.yaml" in msg


def test_unknown_substitute_gpu_is_rejected(data_copy):
    path = data_copy / "gpus" / "l40.yaml"
    data = yaml.safe_load(path.read_text())
    data["china"]["china_substitute"] = "l30"
    path.write_text(yaml.safe_dump(data))
    msg = _error(data_copy)
    assert "l40.yaml" in msg and "china.china_substitute" in msg


def test_data_directory_from_environment(data_copy, monkeypatch):
    _edit(data_copy / "gpus" / "t4.yaml", name="Tesla T4 (test copy)")
    monkeypatch.setenv(DATA_ENV, str(data_copy))
    assert load_catalog().gpu("t4").name == "Tesla T4 (test copy)"
    monkeypatch.delenv(DATA_ENV)
    assert load_catalog().gpu("t4").name != "Tesla T4 (test copy)"
