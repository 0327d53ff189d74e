"""Chinese questions as people in mainland China, Taiwan and Hong Kong type them (simplified and traditional, mixed
with English product names), checked on what the answer must get right whatever its wording: the act answered by the
first sentence, the model and card read (an unknown one said first, never a stand-in), the user's numbers read with
their Chinese units (两张/二十万/5千/1.5w/32K/亿), the follow-up that keeps the earlier job, and no English label in
the opening. Expected readings are hand-read from the questions; figures come from the estimator, not restated here.
"""

from __future__ import annotations

from typing import Any

import pytest

from advisor.conversation.reader.hant import simplified
from advisor.conversation.reader.lang import detect
from advisor.conversation.render.firstscreen import first_sentences
from advisor.conversation.session import Conversation
from tests.chinese_view import english_words


def ask(*turns: str) -> Any:
    conv = Conversation(driver="deterministic")
    turn = None
    for text in turns:
        turn = conv.respond(text)
    assert turn is not None
    return turn


def job(turn: Any) -> dict[str, Any]:
    req = turn.extra["request"]
    return {v["name"]: v["value"] for v in req["job"] + req["limits"] if v["provenance"] != "default"}


def cards(turn: Any) -> dict[str, int | None]:
    return {h["gpu"]: h["count"] for h in turn.extra["request"]["hardware"] if h["gpu"]}


def first(turn: Any) -> str:
    return first_sentences(turn.answer, 1)


def opening(turn: Any) -> str:
    return turn.answer.strip().split("\n\n")[0]


# words of product and provider names an opening may quote as they are spelled
NAMES = {"Laptop", "Max", "Radeon", "Framework", "Desktop", "GMKtec", "EVO-X2", "machine", "Lambda", "Modal",
         "Replicate"}

# (turns, intent, model, {card: count}, job values, what the first sentence holds (any of the alternatives))
CASES: list[tuple[tuple[str, ...], str, str | None, dict[str, int | None], dict[str, Any], tuple[str, ...]]] = [
    # traditional script: 兩張 is two cards, 幾張 asks how many, 預算二十萬 is ¥200,000
    (("兩張4090能跑Llama 3.3 70B嗎",), "feasibility", "llama-3.3-70b", {"rtx-4090": 2}, {}, ("不行", "不够")),
    (("我們公司有三百人，要用Qwen3-30B-A3B，需要幾張H20",), "how_many", "qwen3-30b-a3b", {"h20": None},
     {"headcount": 300}, ("需要",)),
    (("預算二十萬，想部署Qwen3-32B，該買什麼顯卡",), "which", "qwen3-32b", {}, {"budget": 200000.0}, ("建议",)),
    (("H100 租一個月多少錢",), "how_much", None, {"h100-sxm": None}, {"buy_or_rent": "rent"}, ("租",)),
    # numbers with Chinese units
    (("qwen3-32b 32k 上下文 50 并发 需要多少显存",), "explain", "qwen3-32b", {},
     {"context": 32768, "concurrency": 50}, ("GiB",)),
    (("qwen3-32b 8k 上下文 100 路并发 要几张 4090",), "how_many", "qwen3-32b", {"rtx-4090": None},
     {"context": 8192, "concurrency": 100}, ("需要",)),
    (("8卡A800对Qwen2.5-7B做LoRA，数据2亿token，要训练多久",), "how_long", "qwen2.5-7b", {"a800-80g-sxm": 8},
     {"train_tokens": 2e8}, ("2 亿 tokens",)),
    (("4张4090微调qwen3-8b，5千万token大概要几天",), "how_long", "qwen3-8b", {"rtx-4090": 4},
     {"train_tokens": 5e7}, ("5000 万 tokens",)),
    (("预算1.5w买什么卡跑14b",), "which", None, {}, {"budget": 15000.0}, ("¥15,000",)),
    (("预算5千，跑qwen3 8b",), "which", "qwen3-8b", {}, {"budget": 5000.0}, ("¥5,000",)),
    # the act the first sentence answers
    (("4090 vs 5090 跑大模型哪个好",), "compare", None, {"rtx-4090": None, "rtx-5090": None}, {},
     ("RTX 5090 更强",)),
    (("昇腾910B和H20比怎么样",), "compare", None, {"ascend-910b2": None, "h20": None}, {}, ("各有长处",)),
    (("H20 和 L20 怎么选",), "compare", None, {"h20": None, "l20": None}, {}, ("H20 96GB 更强",)),
    (("一张H100现在多少钱",), "how_much", None, {"h100-sxm": 1}, {}, ("单卡约 ¥",)),
    (("RTX 5090 国内价格多少",), "how_much", None, {"rtx-5090": None}, {}, ("单卡约 ¥",)),
    (("8卡H20服务器三年电费加折旧多少",), "how_much", None, {"h20": 8}, {}, ("总拥有成本",)),
    (("一台8卡4090每年电费多少",), "how_much", None, {"rtx-4090": 8}, {}, ("每年电费约 ¥",)),
    (("云上租 H100 每小时多少钱",), "how_much", None, {"h100-sxm": None}, {}, ("每 GPU 小时",)),
    (("租4090跑qwen3-32b推理每百万token成本多少",), "how_much", "qwen3-32b", {"rtx-4090": None}, {},
     ("每百万输出 token",)),
    (("首字延迟要在500ms以内，qwen3-32b 8k上下文用H20行吗",), "feasibility", "qwen3-32b", {"h20": 1},
     {"context": 8192}, ("首 token 约",)),
    (("十张5090能撑多少用户并发跑gpt-oss-20b",), "how_many", "gpt-oss-20b", {"rtx-5090": 10}, {},
     ("最多可同时服务",)),
    (("kv cache 用 fp8 的话 qwen3-32b 32k 能省多少显存",), "explain", "qwen3-32b", {}, {"kv": "fp8", "context": 32768},
     ("省 4.0 GiB",)),  # 2 × 64 layers × 8 KV heads × 128 × 1 byte × 32768 = 4 GiB, half of FP16's 8 GiB
    (("qwen3-32b 推理，要求每个用户每秒至少20个token，50人并发，用H20要几张",), "how_many", "qwen3-32b", {"h20": None},
     {"concurrency": 50}, ("您的目标（每路 20 tokens/s）",)),
    (("H20跑qwen3-32b 16并发行吗",), "feasibility", "qwen3-32b", {"h20": 1}, {"concurrency": 16}, ("可以",)),
    (("3w预算跑qwen3-32b可以吗",), "feasibility", "qwen3-32b", {}, {"budget": 30000.0}, ()),
    (("租4090一个小时多少钱",), "how_much", None, {"rtx-4090": None}, {}, ("每 GPU 小时",)),
    (("kv cache 改成 fp8，qwen3-8b 128k 上下文每条序列多大",), "explain", "qwen3-8b", {},
     {"kv": "fp8", "context": 131072}, ("省 9.0 GiB",)),  # 2 × 36 layers × 8 × 128 × 1 byte × 131072 = 9 GiB
    (("A800跑qwen2.5-32b首字延迟",), "feasibility", "qwen2.5-32b", {"a800-80g-sxm": 1}, {}, ("首 token 约",)),
    (("满血版DeepSeek 要几张H20",), "how_many", "deepseek-r1", {"h20": None}, {}, ("需要",)),
    (("帮我算一下 qwen3-235b-a22b fp8 在 8 张 H20 上 32k 上下文能开多少并发",), "how_many", "qwen3-235b-a22b",
     {"h20": 8}, {"context": 32768, "weights": "fp8"}, ("最多可同时服务",)),
    # a sales engineer's "我们有 … 报哪个": the servers are compared, none is the asker's own
    (("客户想用 2B token 数据 LoRA 微调 Llama-3.1-70B，两周内完成。我们有 8×H20、8×L20 和 8×4090 三种服务器，报哪个？",),
     "compare", "llama-3.1-70b", {"h20": 8, "l20": 8, "rtx-4090": 8}, {"train_tokens": 2e9}, ("H20",)),
    # counts that split into no 8-card servers: the cards as one model-parallel group when replicas cannot hold it
    (("十二张H20能跑DeepSeek-R1吗",), "feasibility", "deepseek-r1", {"h20": 12}, {}, ("可以",)),
    (("二十张H20能跑多少并发的DeepSeek-R1",), "how_many", "deepseek-r1", {"h20": 20}, {}, ("最多可同时服务",)),
    (("Mac Studio M3 Ultra 512G 能跑 DeepSeek R1 671B 吗",), "feasibility", "deepseek-r1",
     {"mac-studio-m3-ultra-512g": 1}, {}, ("不行", "不够", "可以")),
    (("24G显存能跑多大模型",), "which_model", None, {}, {}, ("24 GB 显存的卡",)),
    (("我有一张16G显存的卡，能跑什么模型",), "which_model", None, {}, {}, ("16 GB 显存的卡",)),
    (("单卡能跑qwen3-235b-a22b吗",), "feasibility", "qwen3-235b-a22b", {}, {}, ("不行",)),
    # mixed Chinese and English is answered in Chinese
    (("Ryzen AI Max 395 128G 能跑 gpt-oss-120b 吗",), "feasibility", "gpt-oss-120b",
     {"ryzen-ai-max-395-128g": 1}, {}, ("可以",)),
    # follow-ups keep the job and the act they follow
    (("qwen3-32b 推理需要多少显存", "上下文改成128k呢"), "explain", "qwen3-32b", {}, {"context": 131072},
     ("约需",)),
    (("两张H20能支持多少人同时用Qwen3-32B", "换成四张呢"), "how_many", "qwen3-32b", {"h20": 4}, {},
     ("最多可同时服务",)),
    (("8卡A800对Qwen2.5-7B做LoRA，数据2亿token，要训练多久", "换成4卡呢"), "how_long", "qwen2.5-7b",
     {"a800-80g-sxm": 4}, {"train_tokens": 2e8}, ("约需",)),
    (("8张4090 LoRA微调Qwen2.5-72B要多久，数据1亿token", "数据改成5亿呢"), "how_long", "qwen2.5-72b",
     {"rtx-4090": 8}, {"train_tokens": 5e8}, ()),
    (("8张4090 LoRA微调Qwen2.5-72B要多久，数据1亿token", "5亿呢"), "how_long", "qwen2.5-72b",
     {"rtx-4090": 8}, {"train_tokens": 5e8}, ()),
    (("预算20万跑qwen3-32b", "要是租呢"), "what_if", "qwen3-32b", {}, {"buy_or_rent": "rent"}, ("租用",)),
    (("4090 跑 qwen3-14b 够吗", "那 32k 呢"), "what_if", "qwen3-14b", {"rtx-4090": 1}, {"context": 32768},
     ("不行", "不够")),
    (("两张4090跑Qwen2.5-72B行吗", "换成 int4 呢"), "what_if", "qwen2.5-72b", {"rtx-4090": 2},
     {"weights": "int4"}, ()),
]


@pytest.mark.parametrize(("turns", "intent", "model", "hw", "values", "lead"), CASES,
                         ids=[" / ".join(c[0])[:48] for c in CASES])
def test_chinese_question_is_read_and_answered_first(turns: tuple[str, ...], intent: str, model: str | None,
                                                     hw: dict[str, int | None], values: dict[str, Any],
                                                     lead: tuple[str, ...]) -> None:
    turn = ask(*turns)
    assert turn.extra["intent"] == intent, (turn.extra["intent"], first(turn))
    read = job(turn)
    if model is not None:
        assert read.get("model") == model, read
    for gpu, count in hw.items():
        assert gpu in cards(turn) and cards(turn)[gpu] == count, cards(turn)
    for name, value in values.items():
        assert read.get(name) == pytest.approx(value) if isinstance(value, float) else read.get(name) == value, read
    head = first(turn)
    assert not lead or any(word in head for word in lead), head
    assert "cannot" not in turn.answer and "Traceback" not in turn.answer
    assert english_words(opening(turn)) <= NAMES, opening(turn)


# unknown cards and memory sizes a catalog card does not have: said first, no stand-in answered as them
UNKNOWN = [
    ("沐曦C500 跑 qwen2.5-72b 要几张", "沐曦C500"),
    ("摩尔线程S4000能不能跑7B模型", "摩尔线程S4000"),
    ("天数智芯天垓150能跑qwen3-8b吗", "天数智芯天垓150"),
    ("海光K100 跑 qwen2.5-14b 行吗", "海光K100"),
    ("寒武纪590能跑Qwen3-32B吗", "寒武纪590"),
    ("4090D 48G魔改版能跑Llama 3.3 70B int4吗", "4090D 48G"),  # the 48 GB RTX 4090 is in the catalog; no 4090 D one
    ("一张48G的4090D能跑qwen3-32b吗", "48G的4090D"),
    ("H100 96G 跑 qwen3-32b 行吗", "H100 96G"),
]


UNKNOWN_MODELS = [
    ("腾讯混元 Hunyuan-A13B 要几张4090", "Hunyuan-A13B"),  # the model's name, not a card "A13B"
    ("豆包 能本地部署吗，要几张卡", "豆包"),
    ("Qwen3.5-72B 用两张H20够吗", "Qwen3.5-72B"),
    ("DeepSeek V4 需要几张H20", "DeepSeek V4"),
]


@pytest.mark.parametrize(("text", "name"), UNKNOWN_MODELS, ids=[u[1] for u in UNKNOWN_MODELS])
def test_unknown_model_is_said_first(text: str, name: str) -> None:
    turn = ask(text)
    assert name in turn.extra["request"]["unknown"], turn.extra["request"]["unknown"]
    assert f"未知的模型“{name}”" in first(turn), first(turn)


@pytest.mark.parametrize(("text", "name"), UNKNOWN, ids=[u[1] for u in UNKNOWN])
def test_unknown_card_is_said_first(text: str, name: str) -> None:
    turn = ask(text)
    req = turn.extra["request"]
    assert name in req["unknown"], req["unknown"]
    assert not cards(turn), cards(turn)  # no catalog card answered in its place
    head = first(turn)
    assert name in head and "没有" in head, head


@pytest.mark.parametrize(("text", "gpu"), [
    ("4090 24G 能跑 qwen3-14b 吗", "rtx-4090"),  # its own memory, in GB
    ("H20 96G 跑 qwen3-32b 可以吗", "h20"),
    ("两张4090 48G显存能跑qwen3-32b int4吗", "rtx-4090"),  # the two cards' total
    ("L40S 48G 跑 qwen3-32b", "l40s"),
    ("A800 PCIe 40G 跑 qwen2.5-14b", "a800-40g-pcie"),  # the 40 GB card of that name, said in another order
    ("H20 141G 跑 qwen3-32b", "h20-141g"),
    ("单卡5090 32G，64G内存，能跑qwen3-30b-a3b吗", "rtx-5090"),  # 64G is the host's memory
])
def test_a_card_said_with_its_own_memory_stays_that_card(text: str, gpu: str) -> None:
    turn = ask(text)
    assert gpu in cards(turn) and not turn.extra["request"]["unknown"], turn.extra["request"]


@pytest.mark.parametrize("text", ["部署DeepSeek需要几张卡", "qwen 需要几张4090"])
def test_a_family_named_alone_is_asked_about_not_called_unknown(text: str) -> None:
    turn = ask(text)
    assert not turn.extra["request"]["unknown"], turn.extra["request"]["unknown"]
    assert "哪个模型" in turn.answer, turn.answer


def test_traditional_characters_read_one_for_one() -> None:
    said = "兩張4090，預算二十萬，需要幾張卡？顯存夠嗎"
    out = simplified(said)
    assert out == "两张4090，预算二十万，需要几张卡？显存够吗"
    assert len(out) == len(said)
    assert simplified("效果显著，数据量") == "效果显著，数据量"  # simplified text is left as it is


@pytest.mark.parametrize(("text", "lang"), [
    ("Ryzen AI Max 395 128G 能跑 gpt-oss-120b 吗", "zh"),
    ("DGX Spark run Llama 3.3 70B 可以吗", "zh"),
    ("4090 跑 qwen3 32b 够吗", "zh"),
    ("Can a 4090 run Qwen3-32B at 32k context?", "en"),
])
def test_language_of_mixed_questions(text: str, lang: str) -> None:
    assert detect(text) == lang
