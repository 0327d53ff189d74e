"""The extractor's readers of amounts: tokens, money, context, concurrency and QPS, deadlines and TCO years,
bare model sizes, GPU counts, and a bare number answering the question just asked ("32k", "50", "20万").

Each reader takes the working `Text` and the `Slots` being filled and blanks out what it read; a number outside
what can be sized is recorded in `slots.out_of_range` (`ranges.check`), never cut to fit or dropped.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from advisor.conversation.reader.at_once import (
    all_at_once,
    headcount_at_once,
    part_of_people,
    share_at_once,
    subset_at_once,
)
from advisor.conversation.reader.name_index import representative_model
from advisor.conversation.reader.numbers import (
    BIG_SCALE,
    CNY_WORDS,
    DIGITS,
    USD_WORDS,
    currency_of,
    names_other_slot,
    to_number,
    with_scale,
)
from advisor.conversation.reader.numbers import read as read_number
from advisor.conversation.reader.ranges import MAX_GPU_COUNT, check
from advisor.conversation.reader.servers import server_size_asked
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import CN_NUM, EN_WORD_NUM, NUM, SIZE, Text, scaled, size_of
from advisor.conversation.reader.usage import COUNT_ASKED_BEFORE

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

_TOKENS_AMOUNT = re.compile(
    rf"(?P<num>{NUM})\s*(?P<unit>万亿|千亿|百亿|十亿|亿|千万|百万|万|trillion|billion|million|thousand|bn|[kmbt])?"
    r"[\s-]*(?:个\s*)?(?:tokens?|toks?|词元|token数)(?![a-z])"
)
# "8k prompts", "2k-token answers", "500-token outputs" without the word tokens after the number
_BARE_LENGTH = re.compile(r"(?<![\d.$¥￥a-z])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>k)?[\s-]*(?:tokens?[\s-]*)?"
                          r"(?=(?:long\s+)?(?:prompts?|inputs?|outputs?|answers?|responses?|completions?|repl(?:y|ies))(?![a-z]))")
# "8k 的 prompt", "32k 长 prompt", "4k 输入", "1k 的回答": with 的 or a Chinese word only when the k is typed ("4090 的输入"
# is a card)
_BARE_LENGTH_K = re.compile(r"(?<![\d.$¥￥a-z])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>k)(?:\s*tokens?)?\s*(?:长\s*)?(?:的\s*)?"
                            r"(?=(?:prompts?|inputs?|outputs?|answers?|responses?|输入|提示词?|输出|回答|回复)(?![a-z]))")
# the word first ("prompt 1k, output 512", "输入 1k 输出 1k", "input length 4096"): a number after a length word, not
# a speed ("output 1000 tokens/s"), a count or a card; the pair is read together so "input 2k output 512" does not
# give the 2k to the output word after it
_PROMPT_WORD = r"(?:prompts?|inputs?|输入|提示词?)"
_OUTPUT_WORD = r"(?:outputs?|answers?|responses?|completions?|repl(?:y|ies)|输出|回答|回复|生成)"
# "answers are 1000 tokens long", "each reply is about 500 tokens", "回答大概 1000 个 token"
_LENGTH_VALUE = (r"\s*(?:length|len|长度|tokens?)?\s*(?:of|is|are|=|:|为|是|will be|would be|average|averaging)?\s*"
                 r"(?:about\s*|around\s*|roughly\s*|approximately\s*|~\s*|约\s*|大概\s*|大约\s*)?"
                 r"(?P<{0}>\d+(?:\.\d+)?)\s*(?P<{0}_k>k)?(?:\s*tokens?)?"
                 r"(?![\d.]|\s*(?:tok(?:en)?s?\s*/|/\s*s|tps|每秒|个|张|块|卡|gpus?|cards?|gb|gib|users?|路|并发|人|w\b|"
                 r"字|汉字|中文字|words?\b|char))")  # a length in characters or words: reader.text_length
_LENGTH_PAIR = re.compile(rf"(?<![a-z]){_PROMPT_WORD}{_LENGTH_VALUE.format('p')}\s*(?:[,，/、;；]|and|和|与)?\s*"
                          rf"{_OUTPUT_WORD}{_LENGTH_VALUE.format('o')}")
# benchmark shorthand for a request's lengths: "2k in, 256 out", "1024 in / 128 out", "ISL 1024 OSL 128",
# "1k/1k in/out", "input/output 2048/256"
_N = r"(?P<{0}>\d+(?:\.\d+)?)\s*(?P<{0}_k>k)?\s*(?:tokens?\s*)?"
_IO_WORDS = r"(?:in\s*/\s*out|input\s*/\s*output|inputs?\s*/\s*outputs?|i\s*/\s*o|isl\s*/\s*osl|prompt\s*/\s*output|输入\s*/\s*输出)"
_LENGTH_SHORTHAND = [
    re.compile(rf"(?<![\d.a-z]){_N.format('p')}(?:in|input)\s*(?:[,/;]|and)?\s*{_N.format('o')}(?:out|output)(?![a-z])"),
    re.compile(rf"(?<![a-z])isl\s*[=:]?\s*{_N.format('p')}[,/;]?\s*(?:and\s*)?osl\s*[=:]?\s*{_N.format('o')}"),
    re.compile(rf"(?<![\d.]){_N.format('p')}/\s*{_N.format('o')}{_IO_WORDS}(?![a-z])"),
    re.compile(rf"(?<![a-z]){_IO_WORDS}\s*(?:lengths?|长度)?\s*(?:of|=|:|为|是)?\s*{_N.format('p')}/\s*{_N.format('o')}"),
]
MAX_ANSWER_TOKENS = 200_000  # longer, beside a price, is what the price is per (reasoning traces reach ~64-128k)
_PRICE_WORDS = re.compile(r"cost|price|\$|¥|usd|per[\s-]*(?:m|million)|/\s*m?tok|成本|价格|多少钱|费用|每百万")


def _price_unit(t: Text, value: float) -> bool:
    """Whether an output amount is what a price is per ("the cost of a million output tokens"), not one answer's
    length: beyond MAX_ANSWER_TOKENS with a price word in the message."""
    return value >= MAX_ANSWER_TOKENS and bool(_PRICE_WORDS.search(t.s))


_PER_BEFORE = re.compile(r"(?:每|(?<![a-z])per|/)\s*$")
_IN_OUT_AFTER = re.compile(r"\s*(?:in|input)\s*(?:[,/;]|and)?\s*\d+(?:\.\d+)?\s*k?\s*(?:tokens?\s*)?(?:out|output)(?![a-z])")
_LENGTH_AFTER_WORD = re.compile(rf"(?<![a-z\d])(?P<word>{_PROMPT_WORD}|{_OUTPUT_WORD}){_LENGTH_VALUE.format('n')}")
_RATE_AFTER = re.compile(r"\s*(?:/\s*(?:s|sec|second)|(?:per|an?|each|every)\s+sec(?:ond)?|/\s*秒|每秒)(?![a-z])")
_PROMPT_AFTER = re.compile(r"^[\s-]*(?:long\s+)?(?:prompts?|inputs?|questions?|(?:the\s+)?(?:documents?|docs?|files?|"
                           r"articles?|reports?|contracts?|transcripts?|pdfs?|papers?|codebases?)|(?:的)?(?:输入|提示词?|文档|"
                           r"文章|报告|合同|论文|文件))(?![a-z])")
# (after "N tokens" only: "a 10-token label", "200-token summaries"; "500 summaries" is a count)
_OUTPUT_AFTER = re.compile(r"^[\s-]*(?:long\s+)?(?:outputs?|answers?|responses?|completions?|repl(?:y|ies)|generations?|"
                           r"labels?|summar(?:y|ies)|tags?|classifications?|categor(?:y|ies)|titles?|verdicts?|"
                           r"(?:的)?(?:摘要|标签|分类结果|标题)|"
                           r"(?:的)?(?:输出|回答|回复))(?![a-z])")
# a length word right before the number ("每条输入 1k token", "output: 200 tokens") names it whatever word follows
_PROMPT_RIGHT_BEFORE = re.compile(r"(?:输入|提示词?|(?<![a-z])(?:prompts?|inputs?))\s*(?:长度|length)?\s*(?:是|为|of|is|=|:|：)?\s*"
                                  r"(?:约|大约|大概|about|around|~)?\s*$")
_OUTPUT_RIGHT_BEFORE = re.compile(r"(?:输出|回答|回复|(?<![a-z])(?:outputs?|answers?|responses?))\s*(?:长度|length)?\s*"
                                  r"(?:是|为|of|is|=|:|：)?\s*(?:约|大约|大概|about|around|~)?\s*$")
_PROMPT_WORDS = re.compile(r"(?:输入|提示词?|prompt|input|上文|prefill(?:ing)?|预填充?)[^,.;，。；]{0,12}$")
_OUTPUT_WORDS = re.compile(r"(?:输出|生成|回答|回复|output|generat\w*|completion|response)[^,.;，。；]{0,12}$")
_CONTEXT_WORDS = r"(?:上下文(?:长度|窗口)?|序列长度|序列|seq(?:uence)?(?:[\s_-]*len(?:gth)?)?(?![a-z])|context(?:\s*(?:length|window|len))?|ctx|max[\s_-]*model[\s_-]*len|窗口)"
_CTX_VALUE = rf"(?P<num>{with_scale(DIGITS, BIG_SCALE)}|{with_scale(CN_NUM, BIG_SCALE)})\s*(?P<k>k|千|m)?(?:\s*tokens?)?"
_CONTEXT_AFTER = re.compile(_CONTEXT_WORDS + r"\s*(?:改成|改为|换成|设为|设成|调到|是|为|of|is|=|:|to|at|达到|要|需要|到)?\s*(?:about\s*|约\s*)?" + _CTX_VALUE + r"(?![a-z0-9])")
_CONTEXT_BEFORE = re.compile(_CTX_VALUE + r"\s*(?:的|-?\s*tokens?\s*(?:of\s*)?)?\s*" + _CONTEXT_WORDS)  # "4096-token context"
_DATA_BEFORE = re.compile(r"(?:数据|数据量|语料|训练集|数据集|训练数据)[^，。；,;0-9]{0,6}$")
_NOT_CONTEXT_AFTER = re.compile(r"\s*(?:个|路|名|位)?\s*(?:并发|路|人|用户|请求|会话|users?|concurrent|requests?|sessions?|people)")
_BARE_K = re.compile(r"(?<![\d.$¥￥a-z])(1|2|4|8|16|32|64|128|256|512)\s*k(?![a-z0-9])(?!\s*(?:usd|rmb|cny|元|美元|dollars|\$))")
_MONEY = [
    # ¥200k, ￥ 50 万, $50k, $1.5m
    re.compile(rf"(?P<cur>[¥￥$])\s*(?P<num>{DIGITS})\s*(?P<unit>万|千|k|w|m|mn|million|thousand)?(?![a-z])"),
    # RMB 500k, CNY 2m, USD 50k: the currency's code before the amount
    re.compile(rf"(?<![a-z])(?P<cur>rmb|cny|usd)\s*(?P<num>{DIGITS})\s*(?P<unit>万|千|k|w|m|mn|million|thousand)?(?![a-z0-9])"),
    # 50k usd, 50 thousand dollars, 20万元, 20万 人民币, 1.5 million rmb
    re.compile(rf"(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万|千|k|w|m|mn|million|thousand)?\s*(?P<cur>{USD_WORDS}|{CNY_WORDS}|\$)(?![a-z])"),
]
_PER_HOUR = re.compile(r"\s*(?:/|per|an|a|each|every|每)\s*(?:gpu[\s-]*|card[\s-]*|卡)?(?:hr|hrs|hour|h|小时|时)(?![a-z])")
_BUDGET_BARE = re.compile(
    rf"(?:预算|budget|花费|不超过|控制在|spend|afford)\D{{0,12}}?(?:\d+(?:\.\d+)?\s*(?:-|~|～|到|至|to)\s*)?"  # "30-40k": the top
    rf"(?P<num>{NUM})\s*(?:个\s*(?=亿))?(?P<unit>亿|千万|百万|十万|万|千|k|w|m|mn|million|thousand)?(?![a-z0-9])"
)
# "we've got 30k", "I have 50k to spend": an amount with its scale after "we have / got", read as money only when no
# noun follows ("we have 30k users" is a headcount)
_HAVE_AMOUNT = re.compile(
    rf"(?<![a-z])(?:we|i)\s*(?:'ve|'d|have|had)?\s*(?:got|have|has)\s+(?:about\s+|around\s+|roughly\s+|maybe\s+)?"
    rf"(?P<num>{NUM})\s*(?P<unit>k|m|mn|million|thousand)(?![a-z0-9])(?!\s*(?:tokens?|users?|people|persons|requests?|"
    rf"req|rps|concurrent|gpus?|cards?|servers?|nodes?|samples|examples|docs?|documents|rows|records|employees|devs|"
    rf"developers|engineers|customers|params?|parameters|context|ctx|steps|images)(?![a-z]))")
# the amount before the word: "3w预算", "5千的预算", "两万块预算"
_BUDGET_BEFORE = re.compile(
    rf"(?<![\d.])(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万|千|k|w)?\s*(?:元|块钱|块)?\s*(?:的|左右的?|以内的?)?\s*预算"
)
# "200k budget", "a 100 grand budget"; "20w 能买几张", "5万块能配什么": an amount before the word or before buying
_BUDGET_BEFORE_WORD = re.compile(
    rf"(?<![\d.])(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万|千|k|w|m|mn|million|thousand)?\s*(?:usd|dollars?)?\s*budget(?![a-z])|"
    rf"(?<![\d.])(?P<num2>{NUM})\s*(?P<unit2>千万|百万|十万|万|千|k|w)\s*(?:元|块钱|块)?\s*(?:能|可以|够)\s*(?:买|配|采购|搞)"
)
_WAN_AMOUNT = re.compile(rf"(?P<num>{NUM})\s*(?P<unit>千万|百万|十万|万)(?!\s*(?:tokens?|参数|并发|用户|条|字|次|个|人|卡))")
_CONCURRENCY = [  # requests at the same time, said as such ("50 并发", "30 concurrent users", "20 人同时用")
    re.compile(rf"(?P<num>{with_scale(NUM)})\s*(?:个|路|人)?\s*(?:并发|并发数|并发量|同时在线|人同时|路并发|个用户|位用户|名用户|用户|人在线)"),
    re.compile(rf"(?P<num>{with_scale(NUM)})\s*(?:个|名|位)?\s*人(?=\s*(?:同时|在线|并发|一起))"),
    re.compile(rf"(?:并发|并发数|并发量|同时在线)\s*(?:数|量)?\s*(?:改成|改为|换成|是|为|:|到|达到|约|大概|提到|提高到|提升到|加到|涨到|"
               rf"增加到|增长到|翻到|上到|降到|减到|调到)?\s*(?P<num>{with_scale(NUM)})"),
    re.compile(rf"(?P<num>{with_scale(DIGITS)}|{EN_WORD_NUM})\s*(?:(?:concurrent|parallel|simultaneous|in[\s-]flight|active)\s*)?"
               r"(?:users|user|sessions|requests|streams|clients|"
               r"concurrent|simultaneous|agents)(?![a-z])"),
    # "40 support agents using it at once", "25 call-center operators at the same time": people named by their role,
    # with the simultaneity said after them
    re.compile(rf"(?P<num>{with_scale(DIGITS)})\s+(?:[a-z-]+\s+){{1,2}}(?:agents|operators|reps|representatives|staff|"
               r"analysts|engineers|developers|users)(?=[^?!;\n]{0,30}(?:at once|at the same time|simultaneously|"
               r"concurrently|in parallel))"),
    re.compile(rf"(?P<num>{DIGITS})\s*(?:concurrency|concurrent requests)(?![a-z])"),  # "at 64 concurrency"
    # "when 40 people are using it", "while 25 users are chatting": people using it at that moment
    re.compile(rf"(?<![a-z])(?:when|while|with)\s+(?P<num>{with_scale(DIGITS)})\s+(?:people|users|persons|colleagues|"
               r"engineers|developers|agents|customers)\s+(?:are\s+)?(?:all\s+)?(?:using|on|hitting|querying|chatting|"
               r"calling|sending)(?![a-z])"),
    re.compile(rf"(?:concurrency|concurrent users|parallel requests|batch size)\s*(?:of|is|=|:|to|at|around|about)?\s*(?P<num>{DIGITS})"),
]
_PEOPLE_WORD_NUM = (r"(?<![a-z])(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|sixteen|twenty|"
                    r"thirty|forty|fifty)(?![a-z])")  # not "a"/"one": "a team with a GPU" is no headcount
# people who use the service ("team of 15", "a 40-person company", "我们组15个人用", "全公司 300 人"): a headcount, of
# whom only a share is active at once (the dialog's peak share); simultaneity words after it make it a concurrency
_HEADCOUNT = [
    re.compile(rf"(?P<num>{with_scale(NUM)})\s*(?:个人(?!学习|开发|研究|电脑|工作站|使用)|号人|人使用|人用|"
               r"(?:个|名|位)(?:员工|工程师|算法工程师|同事|学生|同学|老师|客服|客户|研究员|研究生|分析师|开发者|开发人员|程序员|研发)|(?:个|名|位)?(?:客服)?(?:坐席|座席|工位)|"
               r"人(?=\s*(?:部署|团队|规模|访问|调用|的|公司|小组|左右|上下|呢|吧|吗|了|的话|$|[，。,.?？!！；;])))"),

    re.compile(rf"(?:团队|公司|全公司|组里|组内|我们组|小组|部门|实验室|课题组|全组|全员)\s*(?:有|共|一共|总共|大概|约|大约)?\s*"
               rf"(?P<num>{with_scale(NUM)})\s*(?:个|名|位)?\s*(?:人|员工|同事)"),
    re.compile(rf"(?P<num>{with_scale(DIGITS)}|{_PEOPLE_WORD_NUM})\s*(?:people|ppl|persons|folks|engineers|developers|devs|employees|staff|colleagues|"
               r"analysts|seats|customers|students|members|researchers|teammates|coworkers|co-workers)(?![a-z])"),
    # "30 software engineers", "200 support staff": people named by role, one word before the noun
    re.compile(rf"(?P<num>{with_scale(DIGITS)})\s+(?:[a-z]+-?[a-z]*\s+)(?:engineers|developers|devs|employees|staff|"
               r"analysts|researchers|students|agents|operators|reps|colleagues|teammates)(?![a-z])"),
    re.compile(rf"(?<![a-z])(?:team|company|org|organi[sz]ation|group|lab|department|firm|startup|staff|headcount|class)\s+"
               rf"(?:of|with)\s+(?:about\s+|around\s+|roughly\s+|~\s*)?(?P<num>{with_scale(DIGITS)}|{_PEOPLE_WORD_NUM})(?![a-z0-9])"),
    re.compile(rf"(?P<num>{DIGITS}|{_PEOPLE_WORD_NUM})\s*-?\s*(?:person|people|man|member|strong|seat)\s+(?:\w+\s+)?"
               r"(?:team|company|org|organi[sz]ation|startup|lab|group|firm|department|shop|office|class|desk|helpdesk|"
               r"cent(?:er|re)|agency|school|university|hospital|clinic|division|unit|squad|business|studio|practice)(?![a-z])"),
    # "a 40-person support desk": hyphenated, a headcount whatever the noun after it
    re.compile(rf"(?P<num>{DIGITS}|{_PEOPLE_WORD_NUM})-(?:person|people|member|seat)(?![a-z-])"),
]
# a user base ("1,000 registered users", "a user base of 5000", "5000 monthly active users", "注册用户 2000"): read
# before the concurrency patterns, which would take "a user" for one user
_USER_BASE = [
    re.compile(rf"(?P<num>{with_scale(DIGITS)}(?:\s*[km](?![a-z]))?)\s*(?:(?:registered|monthly|daily|weekly|total|active|potential|end)[\s-]+)"
               r"{1,2}users(?![a-z])"),
    re.compile(rf"(?:an?\s+)?(?:user\s*base|userbase)\s*(?:of|is|=|:|around|about)?\s*(?P<num>{with_scale(DIGITS)})"),
    re.compile(rf"(?P<num>{with_scale(DIGITS)}(?:\s*[km](?![a-z]))?)\s*(?:dau|mau|wau)(?![a-z])|(?:dau|mau)\s*"
               rf"(?:of|is|=|:|around|about)?\s*(?P<num2>{with_scale(DIGITS)}(?:\s*[km](?![a-z]))?)"),
    re.compile(rf"(?:注册用户|用户总数|总用户|日活|月活|用户规模)\s*(?:有|是|为|约|大概)?\s*(?P<num>{with_scale(NUM)})"),
]
# the share of the people who use it at once, as the person states it ("高峰 10% 在线", "峰值时 5% 的人同时用", "10% of
# them online at peak", "peak concurrency of 5%"): the headcount times it is the concurrency
_PCT = r"(?P<pct>\d+(?:\.\d+)?)\s*(?:%|％|percent)"
_SHARE = [
    re.compile(rf"(?:高峰|峰值|同时在线|同时使用|并发)\s*(?:期|时|时段|期间|的时候)?\s*(?:约|大概|大约|有|会有|是|率|比例)?\s*(?:约)?\s*{_PCT}"),
    re.compile(rf"{_PCT}\s*(?:的)?\s*(?:人|用户|员工|学生|同事|客户)?\s*(?:会)?\s*(?:同时|在线|并发|活跃)"),
    re.compile(rf"{_PCT}\s*(?:of\s+(?:them|those|the\s+\w+|users|people|employees|staff|students|customers)\s+)?(?:are\s+|is\s+|will\s+be\s+|"
               r"being\s+)?(?:active|online|concurrent(?:ly)?|simultaneous(?:ly)?|at\s+(?:the\s+same\s+time|once|peak)|"
               r"using\s+it\s+at\s+once|on\s+at\s+once)(?![a-z])"),
    re.compile(rf"(?:peak|concurrency)\s*(?:concurrency|usage|share|rate|ratio)?\s*(?:of|is|at|around|about|:)?\s*{_PCT}"),
]
_PEAK = re.compile(rf"(?:高峰|峰值|peak|最多|最高|up to|max(?:imum)?)\s*(?:期|时|时段|of|is|at|:)?\s*(?P<num>{DIGITS})")
_AVERAGE = re.compile(rf"(?:平时|平均|日常|通常|usually|normally|average|avg|typically)\s*(?:of|is|:|约|大概)?\s*(?P<num>{DIGITS})")
_QPS = [
    re.compile(rf"(?:qps|rps)\s*(?:of|is|=|:|约|为|是|达到|大概|改成|改为|提到|提高到|加到|涨到|增加到|降到|调到|to|at)?\s*(?P<num>{DIGITS})"),
    re.compile(rf"(?P<num>{DIGITS})\s*(?:qps|rps|(?:requests?|queries|query|calls?|reqs?)\s*(?:per|/|an?|each|every)\s*"
               r"(?:second|s|sec)(?![a-z])|req/s|个?(?:请求|查询|调用)\s*/\s*秒|每秒请求)"),
    re.compile(rf"每秒钟?\s*(?:(?:处理|接收|收到|有|约|大概|要|需要|会有)\s*)*(?P<num>{NUM})\s*(?:个|次)?\s*(?:请求|次|查询|调用)"),
    # the noun first: "请求速率每秒 1 个", "请求量为每秒 5 次", "request rate of 2 per second", "arrival rate 3/s"
    re.compile(rf"(?:请求|查询|调用|访问)\s*(?:速率|频率|量|数|率)?\s*(?:为|是|约|大概|大约|达到|有|在)?\s*每秒钟?\s*"
               rf"(?:约|大概|大约|有|在)?\s*(?P<num>{NUM})(?![\d.,])\s*(?:个|次|条)?(?!\s*(?:token|tok|字))"),
    re.compile(rf"(?:request|arrival|query|traffic)\s+rate\s*(?:of|is|=|:|at|around|about|~)?\s*(?:about\s+|around\s+|~\s*)?"
               rf"(?P<num>{DIGITS})\s*(?:requests?\s*|reqs?\s*|queries\s*)?(?:per\s+second|per\s+sec|/\s*s(?:ec)?|a\s+second)(?![a-z])"),
]
# a request rate over a longer period ("1000 requests per minute", "50k queries a day", "每分钟 600 个请求"): the
# rate per second is the count over the period (a daily count is an average; the peak is the user's to give)
_PERIOD_S = {"minute": 60, "min": 60, "分钟": 60, "分": 60, "hour": 3600, "hr": 3600, "h": 3600, "小时": 3600, "时": 3600,
             "day": 86400, "天": 86400, "日": 86400}
_RATE = [
    re.compile(rf"(?P<num>{DIGITS})\s*(?P<unit>k|m|million|thousand)?\s*(?:requests?|queries|calls|reqs?|prompts|"
               r"conversations|chats)\s*(?:per|/|an?|each|every)\s*(?P<per>minute|min|hour|hr|h|day)(?![a-z])"),
    re.compile(rf"(?P<num>{DIGITS})\s*(?P<unit>k|m)?\s*rpm(?![a-z])"),
    re.compile(rf"每(?P<per>分钟|小时|天|日)\s*(?:(?:约|大概|大约|差不多|有|会有|要处理|处理|接收|会收到|收到)\s*)*(?P<num>{NUM})\s*"
               r"(?P<unit>万|千)?\s*(?:个|次|条|轮)?\s*(?:请求|调用|对话|提问|问答|会话)"),
    re.compile(rf"(?P<num>{NUM})\s*(?P<unit>万|千)?\s*(?:个|次)?\s*(?:请求|调用)\s*(?:/|每)\s*(?P<per>分钟|小时|天|日)"),
    re.compile(rf"(?:请求|查询|调用|访问)\s*(?:速率|频率|量|数|率)?\s*(?:为|是|约|大概|大约|达到|有|在)?\s*每(?P<per>分钟|小时|天|日)\s*"
               rf"(?:约|大概|大约|有|在)?\s*(?P<num>{NUM})(?![\d.,])\s*(?P<unit>万|千)?\s*(?:个|次|条)?(?!\s*(?:token|tok|字))"),
    re.compile(rf"(?:request|arrival|query|traffic)\s+rate\s*(?:of|is|=|:|at|around|about|~)?\s*(?:about\s+|around\s+|~\s*)?"
               rf"(?P<num>{DIGITS})\s*(?P<unit>k|m)?\s*(?:requests?\s*|reqs?\s*|queries\s*)?(?:per|/|an?|each|every)\s*"
               r"(?P<per>minute|min|hour|hr|h|day)(?![a-z])"),
]
# each person's messages a day beside a headcount ("avg 20 msgs/day each", "each sends about 30 messages per day",
# "50 queries a day per user", "每人每天 20 条", "人均每天提问 15 次"): the people's requests over the day
_MSG_WORD = r"(?:msgs?|messages?|requests?|queries|questions|chats?|calls?|prompts?|conversations?|turns?)"
_A_DAY = r"\s*(?:/|per|an?|each|every)\s*day(?![a-z])"
_EACH_A_DAY = re.compile(
    rf"(?:each|every\s+(?:user|one|person)|per\s+(?:user|person|head))\s+(?:[a-z]+\s+){{0,3}}?(?P<num>{DIGITS})\s*"
    rf"{_MSG_WORD}{_A_DAY}|"
    rf"(?P<num3>{DIGITS})\s*{_MSG_WORD}{_A_DAY}\s*(?:each|per\s+(?:user|person|head)|apiece|per\s+capita)(?![a-z])|"
    rf"(?:每人|人均|每个人|每位用户|每个用户)\s*每天\s*(?:(?:约|大概|大约|平均|发|问|提问|发送|调用|会话)\s*)*(?P<num2>{NUM})\s*"
    r"(?:条|次|个|轮)")
_DEADLINE = re.compile(
    rf"(?P<num>{NUM}|{EN_WORD_NUM}|半)\s*(?:个\s*)?(?P<unit>weeks?|days?|hours?|hrs?|months?|周|星期|礼拜|天|日|小时|月)"
)
_TCO_YEARS = re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:-|\s)?\s*(?:years?|yr|年)(?:\s*(?:tco|total cost|总拥有成本|成本|折旧))?")
_GPU_COUNT = [
    re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:张|块|片)\s*(?:卡|显卡|gpu)?"),
    re.compile(rf"(?P<num>{NUM}|{EN_WORD_NUM})\s*(?:个|台)?\s*(?:卡|显卡|gpu|gpus|cards?|graphics cards?|accelerators?)(?![a-z])"),
    re.compile(r"(?P<word>单卡|双卡|单张|单块|双张|双块|single gpu|single card|one gpu|one card)"),
    # "and on two of them?", "what about 4 of those": the card of the previous answer, that many ("which one of
    # these" is a choice, not a count)
    re.compile(rf"(?!(?:one|a|an|single)\b)(?P<num>{NUM}|{EN_WORD_NUM})\s+of (?:them|those|these|that card|those cards)(?![a-z])"),
]


def _int(value: float | None) -> int | None:
    return None if value is None else round(value)


def read_tokens(t: Text, slots: Slots) -> None:
    """Token amounts: a prompt or output length by the word before it ("输入 2k tokens"), else a training token
    budget of at least 1e6 ("2B tokens") or 1e5 after a data word ("on 500000 tokens"); "context of 8192 tokens" is left to `read_context`."""
    for m in t.finditer(_TOKENS_AMOUNT):
        value = scaled(m.group("num"), m.group("unit"))
        if value is None or value <= 0 or _RATE_AFTER.match(t.s, m.end()):  # "1000 tokens/s": a speed, not a length
            continue
        if _PER_BEFORE.search(t.s[max(0, m.start() - 8):m.start()]):  # "每百万 token 成本", "cost per 1M tokens": a unit
            continue
        if _IN_OUT_AFTER.match(t.s, m.end()):  # "1k tokens in, 500 out": the shorthand pair (read_bare_lengths)
            continue
        before = t.s[max(0, m.start() - 24):m.start()]
        after = t.s[m.end():m.end() + 24]
        slot = ("prompt_tokens" if _PROMPT_RIGHT_BEFORE.search(before)  # "输入 1k token 输出 200 token": its own word
                else "output_tokens" if _OUTPUT_RIGHT_BEFORE.search(before)
                else "output_tokens" if _OUTPUT_AFTER.match(after)  # "195-token answers": the word it qualifies first
                else "prompt_tokens" if _PROMPT_AFTER.match(after)  # "2k-token prompts"
                else "output_tokens" if _OUTPUT_WORDS.search(before) else "prompt_tokens" if _PROMPT_WORDS.search(before)
                else None)
        if slot == "output_tokens" and _price_unit(t, value):
            continue
        if slot is None and (re.search(_CONTEXT_WORDS + r"[^,.;，。；]{0,8}$", before)
                             or re.match(r"\s*(?:of\s*)?" + _CONTEXT_WORDS, t.s[m.end():])):
            continue  # "context of 8192 tokens": the context pattern reads it
        if slot is None and value < 1e6 and not (
                value >= 1e5 and re.search(r"(?<![a-z])(?:on|over|of)\s*$|数据|语料|训练|微调|dataset|corpus", before)):
            continue  # below a million only with a data word before it ("fine-tune on half a million tokens")
        slot = slot or "train_tokens"
        wrong = check(slot, value)
        if wrong is not None:
            slots.out_of_range.append(wrong)
        elif slot == "train_tokens":
            slots.train_tokens = value
        else:
            setattr(slots, slot, _int(value))
        t.consume(m.start(), m.end())


def _set_length(t: Text, slots: Slots, slot: str, num: str, unit: str | None, span: tuple[int, int]) -> None:
    """A prompt or output length read at `span` (1k = 1,000 as typed), when that slot is still empty and the value is
    at least 16 tokens; out of range it is reported, not set. The span is consumed either way."""
    value = scaled(num, unit)
    if value is None or value < 16 or getattr(slots, slot) is not None:
        return
    if slot == "output_tokens" and _price_unit(t, value):
        return
    wrong = check(slot, value)
    if wrong is not None:
        slots.out_of_range.append(wrong)
    else:
        setattr(slots, slot, _int(value))
    t.consume(*span)


def read_bare_lengths(t: Text, slots: Slots) -> None:
    """Prompt/output lengths typed without the word tokens: a benchmark's shorthand ("2k in, 256 out", "ISL 1024 OSL
    128", "1k/1k in/out") or a pair with the words first ("prompt 1k, output 512", "输入 1k 输出 1k"), then numbers
    with the word after them ("8k prompts", "with 500 output"), then a word followed by its number ("output of 300");
    1k = 1,000 tokens as typed."""
    for rx in (*_LENGTH_SHORTHAND, _LENGTH_PAIR):
        for m in t.finditer(rx):
            if slots.prompt_tokens is None and slots.output_tokens is None:
                _set_length(t, slots, "prompt_tokens", m.group("p"), m.group("p_k"), (m.start(), m.end()))
                _set_length(t, slots, "output_tokens", m.group("o"), m.group("o_k"), (m.start(), m.end()))
    _bare_lengths_before_words(t, slots)
    for m in t.finditer(_LENGTH_AFTER_WORD):
        before = t.s[max(0, m.start() - 8):m.start()]
        if re.search(r"\d\s*k?\s*(?:tokens?)?\s*$", before):  # "1k prompt 1k output": the number before is its own
            continue
        slot = "prompt_tokens" if re.fullmatch(_PROMPT_WORD, m.group("word")) else "output_tokens"
        _set_length(t, slots, slot, m.group("n"), m.group("n_k"), (m.start(), m.end()))


def _bare_lengths_before_words(t: Text, slots: Slots) -> None:
    """Numbers whose next word says prompt or output ("8k prompts", "300-token answers", "4k 输入")."""
    for m in [*t.finditer(_BARE_LENGTH), *t.finditer(_BARE_LENGTH_K)]:
        after = t.s[m.end():m.end() + 24]
        slot = "output_tokens" if _OUTPUT_AFTER.match(after) else "prompt_tokens"
        _set_length(t, slots, slot, m.group("num"), m.group("unit"), (m.start(), m.end()))


_OTHER_CURRENCY = (("EUR", re.compile(r"€|(?<![a-z])eur(?:os?)?(?![a-z])|欧元")),
                   ("GBP", re.compile(r"£|(?<![a-z])gbp(?![a-z])|(?<![a-z])pounds?(?![a-z])|英镑")),
                   ("JPY", re.compile(r"(?<![a-z])jpy(?![a-z])|(?<![a-z])yen(?![a-z])|日元")))


def read_money(t: Text, slots: Slots, lang: str) -> None:
    """The budget: an amount with its currency ("$50k", "20万元"), else one after a budget word (CNY when the
    unit is 万 or the message is Chinese), else a bare 万 amount; of several, the largest is the cap. A currency the
    catalog does not price in ("€600k") is kept as said (`other_currency`): the answer says how it was taken."""
    s0 = t.s
    _read_budget(t, slots, lang)
    if slots.budget is not None:
        slots.other_currency = next((code for code, rx in _OTHER_CURRENCY if rx.search(s0)), None)


def _read_budget(t: Text, slots: Slots, lang: str) -> None:
    """`read_money`'s amounts (see there)."""
    found: list[tuple[float, str, int, int]] = []
    for rx in _MONEY:
        for m in t.take(rx):
            if _PER_HOUR.match(t.s, m.end()):  # "$2.10/hr", "¥15 每小时": a price per GPU-hour, not a budget
                continue
            value = scaled(m.group("num"), m.group("unit"))
            cur = m.group("cur")
            currency = currency_of(cur)
            if value:
                found.append((value, currency, m.start(), m.end()))
    if not found:
        for m in (*t.finditer(_BUDGET_BARE), *t.finditer(_BUDGET_BEFORE), *t.finditer(_BUDGET_BEFORE_WORD)):
            groups = m.groupdict()
            unit = groups.get("unit") or groups.get("unit2")
            value = scaled(groups.get("num") or groups.get("num2") or "", unit)
            if not value or value < 100:
                continue
            t.consume(m.start(), m.end())
            currency = "CNY" if unit in ("万", "千万", "百万", "十万", "w") or lang == "zh" else "USD"
            found.append((value, currency, m.start(), m.end()))
    if not found:
        for m in t.finditer(_HAVE_AMOUNT):
            value = scaled(m.group("num"), m.group("unit"))
            if value and value >= 1000:
                t.consume(m.start(), m.end())
                found.append((value, "CNY" if lang == "zh" else "USD", m.start(), m.end()))
    if not found:
        for m in t.finditer(_WAN_AMOUNT):
            if names_other_slot(t.s, m.start()):  # "上下文 2000万", "并发 20万": read by their own slots
                continue
            t.consume(m.start(), m.end())
            value = scaled(m.group("num"), m.group("unit"))
            if value:
                found.append((value, "CNY", m.start(), m.end()))
    if found:
        budget, currency, start, end = max(found)  # "50 万以内" with a second figure: the cap is the largest
        wrong = check("budget", budget)
        if wrong is None:
            slots.budget, slots.currency = budget, currency
            slots.budget_gpus = _for_the_cards(t.original.lower(), start, end) or None
            slots.budget_monthly = _per_month(t.original.lower(), start, end) or None
        else:
            slots.out_of_range.append(wrong)


# a budget said as a spend per month: a month word right after the amount ("$40k/month", "$40k a month", "30万/月",
# "30 万每月") or before it in its clause ("monthly budget of $40k", "每月租卡预算 30 万", "月预算 30 万")
_MONTH_AFTER = re.compile(r"\s*(?:(?:usd|dollars?|rmb|cny|yuan|元|块|人民币)\s*)?(?:/\s*(?:mo(?:nth)?|月)(?![a-z])|"
                          r"(?:per|a|each|every)\s+month|monthly|每个?月|一个月|包月)")
_MONTH_BEFORE = re.compile(r"(?<![a-z])monthly(?![a-z])|(?<![a-z])(?:per|a|each|every)\s+month(?![a-z])|每个?月|月预算|"
                           r"一个月|月租|包月|月均|月度")


def _per_month(s: str, start: int, end: int) -> bool:
    """Whether the amount at s[start:end] is a spend per month (`_MONTH_AFTER` / `_MONTH_BEFORE`)."""
    before = re.split(r"[,.;!?，。；！？]", s[max(0, start - 30):start])[-1] + s[start:end]  # its own "月预算 20 万"
    return bool(_MONTH_AFTER.match(s, end) or _MONTH_BEFORE.search(before))


# the budget said for the cards alone: a card word right before or after the amount ("a GPU under $1000",
# "$800 graphics card", "显卡预算 5000", "5000 元以内的显卡"), and no word for the whole machine nearby
_CARD_WORD = re.compile(r"(?<![a-z])(?:gpus?|graphics cards?|video cards?|cards?)(?![a-z])|显卡|单卡|一张卡|卡的?预算")
_MACHINE_WORD = re.compile(r"(?<![a-z])(?:servers?|systems?|machines?|builds?|rigs?|pcs?|computers?|workstations?|"
                           r"setups?|clusters?|nodes?|whole|total|all[\s-]in)(?![a-z])|服务器|整机|主机|电脑|工作站|机器|集群|总共|总预算|一共")


# a question whose subject is a card ("best gpu for … under $1000", "which card can I get for $800", "买什么显卡")
_CARD_ASKED = re.compile(r"(?<![a-z])(?:best|which|what|cheapest|good|recommend\w*)\s+(?:[\w-]+\s+){0,2}"
                         r"(?:gpus?|graphics cards?|video cards?|cards?)(?![a-z])|哪(?:张|款|个|种)(?:显卡|卡)|什么(?:显卡|卡)|"
                         r"显卡推荐|推荐(?:一?[张款个])?显卡")


def _for_the_cards(s: str, start: int, end: int) -> bool:
    """Whether the amount at s[start:end] is a price for the GPUs alone: a card word within the clause around it, or
    a question asking for a card with no word for the whole machine anywhere in it."""
    before = re.split(r"[,.;!?，。；！？]", s[max(0, start - 30):start])[-1]
    after = re.split(r"[,.;!?，。；！？]", s[end:end + 24])[0]
    near = before + " " + after
    if _CARD_ASKED.search(s) and not _MACHINE_WORD.search(s):
        return True
    return bool(_CARD_WORD.search(near)) and not _MACHINE_WORD.search(near)


def read_context(t: Text, slots: Slots) -> None:
    """The context length beside a context word ("上下文 32k", "8192 tokens context"; k = 1024), else a bare
    power-of-two "32k"."""
    for rx in (_CONTEXT_AFTER, _CONTEXT_BEFORE):
        m = rx.search(t.s)
        if m and rx is _CONTEXT_AFTER and _NOT_CONTEXT_AFTER.match(t.s, m.end()):
            m = None  # "32k 上下文 50 并发": the 50 after "上下文" counts users; the 32k before it is the context
        if m:
            value = read_number(m.group("num")) or 0.0
            k = m.group("k")
            value *= 1024 if k in ("k", "千") else (1024 * 1024 if k == "m" else 1)
            wrong = check("context", value)
            if wrong is None:
                slots.context = int(value)
            if wrong is None or value > wrong.hi:  # a small number beside "context" may be something else
                slots.out_of_range += [wrong] if wrong else []
                t.consume(m.start(), m.end())
                return
    m = _BARE_K.search(t.s)
    if m:
        slots.context = int(m.group(1)) * 1024
        t.consume(m.start(), m.end())


def read_concurrency(t: Text, slots: Slots) -> None:
    """QPS, and the concurrency: the largest figure named (peak), and the average when a second, smaller one or
    an "average/平时" figure is given; the people who use the service (`headcount`), when said as a team or company
    size rather than as requests at the same time."""
    for rx in _QPS:
        m = rx.search(t.s)
        if m:
            v = to_number(m.group("num"))
            if v and v > 0:
                slots.qps = v
                t.consume(m.start(), m.end())
                break
    daily = _EACH_A_DAY.search(t.s) if slots.qps is None else None
    each = to_number(next(g for g in daily.group("num", "num2", "num3") if g)) if daily else None
    if daily:  # each person's requests a day: multiplied by the people once they are read, not a total rate
        t.consume(daily.start(), daily.end())
    for rx in _RATE if slots.qps is None else ():
        m = rx.search(t.s)
        if m:
            v = scaled(m.group("num"), m.group("unit"))
            per = _PERIOD_S.get(m.groupdict().get("per") or "minute", 60)
            if v and v > 0:
                slots.qps = v / per
                t.consume(m.start(), m.end())
                break
    share = None
    for rx in _SHARE:  # before the peak figure: "高峰 10%" is a share, not 10 users
        m = rx.search(t.s)
        pct = to_number(m.group("pct")) if m else None
        if m and pct and 0 < pct <= 100:
            share = pct / 100
            t.consume(m.start(), m.end())
            break
    part = part_of_people(t.s)  # "only 3 of our 12 analysts use it simultaneously": 3 of 12
    if part:
        t.consume(*part[2])
    said_share = share_at_once(t.s) if share is None and not part else None  # "maybe a quarter are chatting at once"
    if said_share:
        share = said_share[0]
        t.consume(*said_share[1])
    peak = _PEAK.search(t.s)
    avg = _AVERAGE.search(t.s)
    values: list[int] = []
    people: list[int] = []
    for rx in _USER_BASE:
        for m in t.take(rx):
            got = m.group("num") or m.groupdict().get("num2") or ""
            k = re.fullmatch(r"([\d.,]+)\s*(k|m)", got.strip())  # "DAU of 20k", "50k monthly active users"
            value = scaled(k.group(1).replace(",", ""), k.group(2)) if k else read_number(got)
            if value and check("concurrency", value) is None:
                people.append(int(value))
    for rx in _CONCURRENCY:
        for m in t.take(rx):
            value = read_number(m.group("num"))
            wrong = check("concurrency", value) if value else None
            if value and wrong is None:
                values.append(int(value))
            elif wrong is not None:
                slots.out_of_range.append(wrong)
    for rx in _HEADCOUNT:
        for m in t.take(rx):
            value = read_number(m.group("num"))
            wrong = check("concurrency", value) if value else None
            if value and wrong is None:
                # "40 people using it at the same time": a concurrency after all
                at_once = headcount_at_once(t.s[m.end():], t.s[max(0, m.start() - 16):m.start()])
                (values if at_once and share is None else people).append(int(value))
            elif wrong is not None:
                slots.out_of_range.append(wrong)
    if part and part[1] in values + people:  # the whole, read as people (at once or not): the part is on at once
        values, people = [v for v in values if v != part[1]] + [part[0]], [part[1]]
    subset = subset_at_once(t.s, max(people)) if people and not values and share is None else None
    if subset:  # "40 people, 5 of them at the same time": the five are the concurrency
        values.append(subset[0])
        t.consume(*subset[1])
    elif people and not values and share is None and all_at_once(t.s):  # "30 students, all at once"
        people, values = [], people
    if share is not None and values and not people:  # "5000 users, 10% online at peak": the users are the people
        people, values = [max(values)], []
    if people:
        slots.headcount = max(people)
        slots.peak_share = share
        if each and 0 < each <= 10_000 and slots.qps is None:  # "1000 DAU, 20 messages a day each": a day's average
            slots.qps, slots.daily_each = slots.headcount * each / 86400, each
    if peak and (values or re.search(r"并发|concurren|users|用户", t.original.lower())):
        v = to_number(peak.group("num"))
        if v and 1 <= v <= 100_000:
            values.append(int(v))
            t.consume(peak.start(), peak.end())
    if avg and values:
        v = to_number(avg.group("num"))
        if v and 1 <= v <= 100_000 and int(v) in values:
            slots.concurrency_avg = int(v)
            t.consume(avg.start(), avg.end())
    if values:
        slots.concurrency = max(values)
        if slots.concurrency_avg is None and len(set(values)) > 1:
            slots.concurrency_avg = min(values)


_UNIT_SECONDS = {"week": 7 * 86400, "weeks": 7 * 86400, "周": 7 * 86400, "星期": 7 * 86400, "礼拜": 7 * 86400,
                 "day": 86400, "days": 86400, "天": 86400, "日": 86400, "hour": 3600, "hours": 3600, "hr": 3600,
                 "hrs": 3600, "小时": 3600, "month": 30 * 86400, "months": 30 * 86400, "月": 30 * 86400}


def read_deadline_and_years(t: Text, slots: Slots) -> None:
    """The TCO horizon in years ("3 年 TCO") and a deadline with a deadline word ("两周内训完", "within 10 days"),
    not a rate ("per day")."""
    for m in t.finditer(_TCO_YEARS):
        value = 0.5 if m.group("num") == "半" else to_number(m.group("num"))
        if value and 1 <= value <= 15:
            slots.tco_years = int(value)
            t.consume(m.start(), m.end())
            break
    for m in t.finditer(_DEADLINE):
        before = t.s[max(0, m.start() - 14):m.start()]
        after = t.s[m.end():m.end() + 8]
        if re.search(r"每|per|a$|/\s*$", before) or re.match(r"\s*(?:的数据|of data)", after):
            continue
        # "how many H100s for 60 days?": the count asked for a time is the count that finishes in it
        count_for = re.search(r"(?<![a-z])for\s*(?:about\s*)?$", before) and COUNT_ASKED_BEFORE.search(t.s[:m.start()])
        if not (count_for or re.search(r"(?<![a-z])(?:within|in|by|under|less than|done|finish|deadline)(?![a-z])|要在|必须|需要|期限|限",
                          before)
                or re.match(r"\s*(?:能|可以|就)?\s*(?:内|以内|之内|完成|搞定|跑完|训练完|训完|的时间|deadline)", after)
                or re.match(r"\s*(?:最多|最大)?\s*(?:能|可以|可)\s*(?:从头|从零)?\s*预?训", t.s[m.end():m.end() + 14])):
            continue
        num = m.group("num")
        value = 0.5 if num == "半" else to_number(num)
        if value is None:
            continue
        slots.deadline_s = value * _UNIT_SECONDS[m.group("unit")]
        t.consume(m.start(), m.end())
        break


_PRETRAINING = re.compile(r"pre[\s-]?train|from scratch|预训练|从头(?:开始)?训|继续预训练|continued pre")


def _architecture_said(s: str) -> bool | None:
    """"dense" / "稠密" → False, "MoE" / "混合专家" → True, neither → None (any architecture may stand in)."""
    if re.search(r"(?<![a-z])dense(?![a-z])|稠密|非\s*moe|non[\s-]?moe", s):
        return False
    if re.search(r"(?<![a-z])moe(?![a-z])|混合专家|mixture[\s-]of[\s-]experts", s):
        return True
    return None


def read_size(t: Text, slots: Slots, catalog: Catalog | None) -> None:
    """A bare model size ("70B", "700亿") when no model was named, and the catalog model standing for it."""
    for m in t.finditer(SIZE):
        value = size_of(m)
        if not value or not 5e7 <= value <= 5e12:
            continue
        t.consume(m.start(), m.end())
        if m.group("cnunit") and slots.train_tokens is None and _DATA_BEFORE.search(t.s[max(0, m.start() - 12):m.start()]):
            slots.train_tokens = value  # "数据改成5亿", "语料 3 亿": the data's tokens, not a model of 5亿 parameters
            continue
        if slots.model is not None:
            continue
        slots.size_params = value
        if slots.unknown_model:  # "Nemotron 3 Super 120B": the size of a model the catalog lacks, not a stand-in's
            return
        if catalog is not None:
            moe = _architecture_said(t.s)
            model_id, err = representative_model(catalog, value, moe=moe)
            if moe is None and _PRETRAINING.search(t.original.lower()):
                # "pre-train a 30B": a dense model of that size when the catalog has one within 15 % (a 30B-A3B MoE
                # costs a tenth of the compute a 30B pre-training run means)
                dense, d_err = representative_model(catalog, value, moe=False)
                if dense and d_err < 0.15:
                    model_id, err = dense, d_err
            if model_id:
                slots.model = model_id
                slots.model_text = t.quote(m.start(), m.end())
                slots.model_assumed = "size" if err < 0.15 else "closest"
        return


def read_gpu_count(t: Text, slots: Slots) -> None:
    """A GPU count without a card name ("四张卡", "8 GPUs", "单卡"), 1 to MAX_GPU_COUNT; a server size asked
    ("how many 4-GPU servers") is `server_size`, not a count."""
    sized = server_size_asked(t.s)  # "how many 4-GPU servers", "需要几台 8 卡服务器"
    if sized is not None:
        slots.server_size = sized[0]
        t.consume(sized[1], sized[2])
    for rx in _GPU_COUNT:
        m = rx.search(t.s)
        if not m:
            continue
        if "word" in rx.groupindex and m.group("word"):
            value: float | None = 2.0 if m.group("word").startswith(("双", "dual")) else 1.0
        else:
            value = to_number(m.group("num"))
        if value and 1 <= value <= MAX_GPU_COUNT:
            slots.gpu_count = int(value)
            t.consume(m.start(), m.end())
            return


_COUNTED = ("context", "concurrency", "output_tokens")  # bare answers read as counts, range-checked
_PENDING_NUMBER = re.compile(rf"^\s*(?:about|around|约|大概|大约)?\s*(?P<num>{NUM})\s*(?P<unit>k|千|万|w|m)?\s*(?:个|人|路|tokens?)?\s*[.。!！]?\s*$")


def read_bare_answer(t: Text, slots: Slots, pending: str, lang: str) -> None:
    """A short reply to the question just asked: "32k" for context, "50" for concurrency, "20万" for budget."""
    m = _PENDING_NUMBER.match(t.s)
    if not m:
        return
    num, unit = m.group("num"), m.group("unit")
    value = to_number(num)
    if pending in _COUNTED and value and (unit is None or pending != "concurrency"):
        value *= 1024 if unit in ("k", "千") and pending != "concurrency" else 1
        wrong = check(pending, value)  # 1e400 reads as inf: out of range, never int(inf)
        if wrong is not None:
            slots.out_of_range.append(wrong)
        elif getattr(slots, pending) is None:
            setattr(slots, pending, int(value))
        return
    if value is not None and not math.isfinite(value):
        return
    if pending == "budget" and slots.budget is None:
        value = scaled(num, unit)
        wrong = check("budget", value) if value else None
        if wrong is not None:
            slots.out_of_range.append(wrong)
        elif value:
            slots.budget = value
            slots.currency = slots.currency or ("CNY" if lang == "zh" or unit in ("万", "w") else "USD")
    elif pending == "gpu_count" and slots.gpu_count is None:
        value = to_number(num)
        if value and unit is None:
            slots.gpu_count = int(value)
