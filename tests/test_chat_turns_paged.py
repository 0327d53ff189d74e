"""Users whose chat turns fit a paged KV cache though their whole default contexts do not: "50 users of Llama-3.1-8B
on one 4090, what speed does each get?". The memory verdict counts every user at the whole 4,096-token context the
answer assumes (42 GiB on a 24 GB card); vLLM keeps only what the requests have written, so the card serves the 50
while their conversations stay short. The answer opens with the simulated load at the users asked and then says how
many whole contexts fit; before, it said there was no speed to give and sold seven cards."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.reader.extract import extract
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.session import Conversation
from knowledge.structs import dump
from tests.answer_text import answer, number

LEAD_EN = re.compile(r"^\*\*Yes, for chat turns: .+? serves (\d+) concurrent users at ([\d.]+) tokens/s each "
                     r"\((\d+) ms per token\), first token after (\d+) ms")
LEAD_ZH = re.compile(r"^\*\*按聊天轮次可以：.+?可同时服务 (\d+) 路并发，每路 ([\d.]+) tokens/s（每 token (\d+) ms），首 token 延迟 (\d+) ms")


def _first(text: str, lang: str = "en") -> str:
    return answer(text, lang).split("\n")[0]


@pytest.mark.parametrize(("text", "users"), [
    ("50 users on Llama-3.1-8B with one RTX 4090, what speed does each get?", 50),
    ("Can a single RTX 4090 handle 50 people chatting at once with Llama 3.1 8B? How fast for each?", 50),
    ("Llama 3.1 70B on 2x H100 for 50 users, what speed per user?", 50),
    ("Qwen2.5-32B for 40 concurrent users on one A100 80GB, what latency will they see?", 40),
    ("What's the time to first token for 60 simultaneous users of Mistral-7B on one RTX 3090?", 60),
])
def test_english_paraphrases_open_with_the_load_asked(text: str, users: int) -> None:
    first = _first(text)
    m = LEAD_EN.search(first)
    assert m, first
    assert int(m.group(1)) == users
    per, tpot = float(m.group(2)), float(m.group(3))
    assert abs(per - 1000 / tpot) <= 0.06 * per + 1  # per-user speed and time per token are one figure
    assert "No speed to give" not in first and "Not as asked" not in first
    assert re.search(r"Not \d+ whole 4096-token contexts: \d+ of them fit at once", first), first


@pytest.mark.parametrize(("text", "users"), [
    ("用一张 4090 跑 Qwen2.5-7B，给 80 个人同时用，首字延迟和每人速度怎样？", 80),
    ("一张 RTX 4090 部署 Llama-3.1-8B，50 个人同时聊天，每人每秒多少 token？", 50),
    ("两张 H100 跑 Llama 3.1 70B，同时 50 个用户在线，卡不卡？", 50),
])
def test_chinese_paraphrases_open_with_the_load_asked(text: str, users: int) -> None:
    first = _first(text, "zh")
    m = LEAD_ZH.search(first)
    assert m, first
    assert int(m.group(1)) == users
    assert re.search(r"放不下 \d+ 路完整的 4096 tokens 上下文：同时只能放 \d+ 路", first), first
    assert "谈不上速度" not in first


@pytest.mark.parametrize(("text", "lang", "lead", "intro"), [
    ("Serve Llama 3.1 70B to 50 users on 2x H100", "en", "**Not as asked** — 2× NVIDIA H100",
     r"As chat turns of 410 tokens, the 50 users fit vLLM's paged KV cache at once \([\d,]+ tokens beside the weights\): "
     r"\*\*At 50 concurrent users\*\* on 2×"),
    ("Can our 2x RTX 4090 box serve Llama-3.1-70B in 4-bit to 8 users?", "en", "**No** — 2× GeForce RTX 4090",
     r"As chat turns of 410 tokens, the 8 users fit vLLM's paged KV cache at once .*\*\*At 8 concurrent users\*\*"),
    ("两张 4090 能给 8 个人同时跑 Llama-3.1-70B 4bit 吗？", "zh", "**按原样不行**",
     r"按每轮对话 410 tokens 计，8 路并发可同时放进 vLLM 按页分配的 KV 缓存（权重之外 [\d,]+ tokens）：\*\*8 路并发时\*\*"),
])
def test_asked_whether_it_fits_the_verdict_on_whole_contexts_leads(text: str, lang: str, lead: str, intro: str) -> None:
    """"Can it serve them?" is answered on whole contexts first, as the memory is sized (no: short by …); the users'
    chat turns on the paged cache follow as the load line, at the users asked."""
    out = answer(text, lang)
    assert out.startswith(lead), out[:300]
    assert re.search(intro, out.split("<details>")[0]), out[:900]


def test_the_load_line_below_is_the_same_load() -> None:
    """The lead and the load line under it are the same simulation at the users asked: no second, smaller load and
    no copies bought for users the card already serves."""
    text = answer("50 users on Llama-3.1-8B with one RTX 4090, what speed does each get?")
    head = text.split("<details>")[0]
    lead_per = number(r"serves 50 concurrent users at ([\d.]+) tokens/s each", head)
    line_per = number(r"\*\*At 50 concurrent users\*\* on 1× GeForce RTX 4090: .*?, ([\d.]+) tokens/s per user", head)
    assert lead_per == line_per
    assert "At 8 concurrent users" not in head and "copies of this deployment" not in head
    assert "chat turn of 215 tokens in and 195 tokens out" in head  # the lengths the load is for, said


def test_a_format_that_holds_whole_contexts_follows() -> None:
    """70B in BF16 on 2× H100: the turns fit beside the weights; FP8 weights would hold all 50 whole contexts, and
    its load is shown after the one as asked."""
    head = answer("Llama 3.1 70B on 2x H100 for 50 users, what speed per user?").split("<details>")[0]
    assert "To hold every user's whole context: switching to FP8 weights." in head
    assert head.index("**At 50 concurrent users** on 2×") < head.index("With FP8 weights: **At 50 concurrent users**")


def test_numbers_are_grounded_and_the_verdict_is_yes() -> None:
    said = "50 users on Llama-3.1-8B with one RTX 4090, what speed does each get?"
    turn = Conversation(driver="deterministic", lang="en").respond(said)
    assert turn.contract().verdict == "yes"
    pool = grounding.Pool.of([{"numbers": [dump(n) for n in turn.numbers]}], texts=[said])
    report = grounding.check(fs.split_details(turn.answer)[0], pool)
    assert report.ok, [m.text for m in report.ungrounded]


@pytest.mark.parametrize("text", [
    # the context said: the users' whole contexts are what was asked for
    "Serve Qwen2.5-14B to 50 users with 32k context on one L40S",
    "50 users on Llama-3.1-8B with one RTX 4090 at 4096 tokens of context each, what speed?",
    # the request lengths said
    "50 users sending 3000-token prompts to Llama-3.1-8B on one RTX 4090, what speed does each get?",
    # llama.cpp reserves every slot's whole context
    "50 users on Llama-3.1-8B with one RTX 4090 under llama.cpp, what speed does each get?",
    # more users than the cache holds even as chat turns
    "500 users on Llama-3.1-8B with one RTX 4090, what speed does each get?",
    # a reasoning model answered at its own long context
    "DeepSeek-R1-Distill-Qwen-32B on two A100 80GB, 30 concurrent users, tokens/s each?",
    # "will it OOM?" reads the verdict the other way round
    "Will Llama-3.1-8B OOM on one RTX 4090 with 50 users?",
])
def test_not_when_whole_contexts_or_lengths_were_asked(text: str) -> None:
    first = _first(text)
    assert "for chat turns" not in first, first


def test_a_configuration_that_fits_is_unchanged() -> None:
    first = _first("Serve Llama-3.1-8B to 50 users on one H100")
    assert first.startswith("**Yes: 1× NVIDIA H100 SXM5 80GB fits**"), first


@pytest.mark.parametrize(("text", "context"), [
    ("Llama-3.1-8B on one RTX 4090 with 50 users at a 4096-token context each: what TTFT?", 4096),
    ("serve a 32k-token context to 20 users of Llama-3.1-8B on an H100", 32768),
    ("8192 - token context, 10 users, Qwen2.5-7B on an L4", 8192),
])
def test_a_hyphenated_context_is_read_as_the_context(text: str, context: int) -> None:
    """"a 4096-token context" is the context the user asks for (it had been read as nothing, so the turns answer
    would have replaced whole contexts that were asked for)."""
    assert extract(text).context == context


@pytest.mark.parametrize(("text", "lang"), [
    ("How many users can one RTX 4090 serve with Llama-3.1-8B?", "en"),
    ("How many concurrent users can 2x H100 handle for Llama 3.1 70B?", "en"),
    ("Max number of simultaneous chats for Qwen2.5-14B on a single H100?", "en"),
    ("一张 4090 跑 Llama-3.1-8B 能同时服务多少人？", "zh"),
])
def test_how_many_users_adds_the_chat_turns_the_paged_cache_holds(text: str, lang: str) -> None:
    """The users answer counts whole default contexts (the memory binds); the chat turns the paged cache holds and
    how many of them meet the per-token target follow, never fewer than the whole-context count."""
    first = answer(text, lang).split("\n")[0]
    if lang == "en":
        whole = number(r"serves at most (\d+) concurrent users", first)
        held = number(r"paged KV cache holds (\d+) at once", first)
        most = number(r"and (\d+) of them stay within 40 ms per token", first)
    else:
        whole = number(r"最多可同时服务 (\d+) 路", first)
        held = number(r"KV 缓存一次放得下 (\d+) 路", first)
        most = number(r"其中 (\d+) 路每 token 在 40 ms 以内", first)
    assert whole < most <= held


@pytest.mark.parametrize("text", [
    "How many users can one RTX 4090 serve with Llama-3.1-8B at an 8k context?",  # whole contexts asked for
    "How many users can one RTX 4090 serve with Llama-3.1-8B under llama.cpp?",  # slots reserve whole contexts
    "How many users can one H100 serve with Llama-3.1-8B at 100 tokens/s each?",  # the latency binds, not memory
])
def test_no_chat_turn_count_where_whole_contexts_or_latency_decide(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "chat turns of" not in first, first


def test_the_engine_slots_are_named_when_they_bind() -> None:
    """vLLM keeps the A100 at 256 sequences (its larger defaults skip the A100): the chat turns are capped by the
    engine's --max-num-seqs, not by the KV cache, and the answer says which."""
    first = answer("At what number of simultaneous users does a single A100 80GB stop giving 20 tok/s per user on "
                   "Llama-3.1-8B?").split("\n")[0]
    assert "vLLM runs 256 at once (its --max-num-seqs; the KV cache would hold more)" in first, first


@pytest.mark.parametrize(("text", "lang", "head"), [
    ("Qwen2.5-32B on two 4090s, 20 users at once, what speed per user?", "en",
     "With FP8 weights: **Yes, for chat turns: 2× GeForce RTX 4090 serves 20 concurrent users at "),
    ("Qwen2.5-32B 在两张 4090 上，20 个人同时问，吐字速度多少？", "zh",
     "改用 FP8 权重后：**按聊天轮次可以：2× GeForce RTX 4090 可同时服务 20 路并发，每路 "),
])
def test_weights_that_leave_no_room_are_served_in_a_lighter_format(text: str, lang: str, head: str) -> None:
    """BF16 Qwen2.5-32B (64 GB) leaves two 24 GB cards no room for one whole context and no single change was found
    (it had answered "no speed to give … 8× 4090 fits it"): the lighter format that holds one, its chat turns then."""
    out = answer(text, lang)
    first = out.split("\n")[0]
    assert first.startswith(head), first
    assert ("In BF16, it does not fit" if lang == "en" else "按 BF16 放不下") in first
    load = out.split("\n\n")[1]
    assert load.startswith("With " if lang == "en" else "改用 "), load  # the load line in the same format


@pytest.mark.parametrize(("text", "lang", "head"), [
    ("Qwen2.5-32B on two RTX 3090s for 10 users, how fast is each?", "en",  # no FP8 tensor cores: 4-bit
     r"With AWQ INT4 weights: \*\*2× GeForce RTX 3090 serves 10 concurrent users at (\d+) tokens/s each \((\d+) ms per "
     r"token\), first token after \d+ ms\*\*\. In BF16, it does not fit: [\d.]+ GiB short per GPU"),
    ("两张 3090 跑 Qwen2.5-32B，10 个人同时用，每人速度多少？", "zh",
     r"改用 AWQ INT4 权重后：\*\*2× GeForce RTX 3090 可同时服务 10 路并发，每路 (\d+) tokens/s（每 token (\d+) ms），"
     r"首 token 延迟 \d+ ms\*\*。按 BF16 放不下"),
])
def test_a_speed_asked_where_one_format_change_holds_it(text: str, lang: str, head: str) -> None:
    """A single change (AWQ INT4) holds the 10 users' whole contexts: the speed in that format at the users asked
    opens the answer (it had opened "no speed to give", the speed a paragraph below)."""
    first = answer(text, lang).split("\n")[0]
    m = re.match(head, first)
    assert m, first
    per, tpot = int(m.group(1)), int(m.group(2))
    assert abs(per - 1000 / tpot) <= 0.06 * per + 1


@pytest.mark.parametrize(("text", "lang", "tail"), [
    ("Llama-3.1-8B on one A10 with 50 users: p99 TTFT?", "en", r"first token after \d+ ms \(\d+ ms at p99\)"),
    ("vLLM 部署 Llama-3.1-8B 单卡 A10，50 并发，p99 首字延迟多少？", "zh", r"首 token 延迟 \d+ ms（p99 \d+ ms）"),
])
def test_a_tail_asked_is_the_tail_in_the_lead(text: str, lang: str, tail: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert re.search(tail, first), first


@pytest.mark.parametrize(("text", "lang", "head"), [
    ("Does chunked prefill help TTFT for 32k-token prompts with Llama 3.1 8B on one H100 at 20 users?", "en",
     "With an FP8 KV cache: **With chunked prefill the first token comes after "),
    ("chunked prefill 对 32k 长 prompt 的首 token 有帮助吗？Llama 3.1 8B，单卡 H100，20 并发", "zh",
     "KV 缓存改用 FP8 后：**开启分块预填充时首 token 延迟 "),
])
def test_with_and_without_on_the_cards_as_changed(text: str, lang: str, head: str) -> None:
    """20 prompts of 32k tokens do not fit one H100's KV cache in BF16; the FP8 KV cache that holds them is the
    configuration chunked prefill is judged on (it had answered only the shortfall). "32k 长 prompt" is a 32k prompt."""
    first = answer(text, lang).split("\n")[0]
    assert first.startswith(head), first
    assert extract(text).prompt_tokens == 32000


@pytest.mark.parametrize(("text", "lang", "head"), [
    ("Phi-4 on one RTX 4080 Super for 35 concurrent users, how fast?", "en",
     "With AWQ INT4 weights: **Yes, for chat turns: one card serves 35 concurrent users at "),
    ("一张 4080 Super 跑 Phi-4，35 个人同时用，每人速度多少？", "zh",
     "改用 AWQ INT4 权重后：**按聊天轮次可以：一张卡可同时服务 35 路并发，每路 "),
])
def test_the_change_found_serves_the_users_chat_turns(text: str, lang: str, head: str) -> None:
    """AWQ INT4 is the change found for Phi-4 on a 16 GB card, but it holds only 4 whole contexts: the 35 users are
    answered as chat turns in that format (it had answered "serves 4 concurrent users", not the 35 asked)."""
    out = answer(text, lang)
    first = out.split("\n")[0]
    assert first.startswith(head), first
    assert "At 4 concurrent users" not in out and "4 路并发时" not in out  # no second, smaller load below
