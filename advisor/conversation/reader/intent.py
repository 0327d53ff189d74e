"""What kind of question a message asks, and whether to answer it at once with stated defaults or ask first.

Intents (the `intent` key of `gpu-advisor ask --json`):

    feasibility  "does it fit / 够不够 / can I / 能跑吗"        -> verdict yes / no / with_changes
    how_many     "how many GPUs / 几张卡"                       -> the count
    how_long     "how long / 多久 / 几天"                        -> wall-clock time
    how_much     "how much / 多少钱 / quote / 报价"              -> price (and TCO)
    which        "which card / 用什么卡 / recommend"             -> the recommended configuration
    compare      "A vs B / 对比 / 哪个好"                         -> the named configurations side by side
    market       "can I still buy / 能采购吗 / availability"      -> China-market status and dated price
    claim        "the guide says … / 文章说 … 对吗"               -> the claim's verdict with the computed figure
    explain      "why / 为什么 / how is it computed"              -> the breakdown behind a number
    what_if      a follow-up that changes one thing             -> what changed and by how much
    capabilities "what can you do / 你能做什么" (nothing to size)   -> what the advisor does, three example questions
    other        anything else

THE ASK-VERSUS-DEFAULT RULE (applied by `dialog.missing_blocking` with `implies_inference` below), decided by the
conversation test sets:

* Answer at once with stated defaults whenever a reasonable default exists: task = inference (serving), one user,
  4096-token context (or the model's own default), the checkpoint's precision, the region the language implies
  (Chinese -> mainland China). The defaults used are said in the first lines of the answer, and at most one
  question follows the answer (the one that would change it most).
* Ask before answering only when no reasonable default exists:
    - no model and no parameter count (and the question is not one the catalog answers alone: market, claim,
      compare or explain about named cards);
    - a job with no task words at all and no question shape that implies serving: "What hardware for Llama-3.1-8B?"
      names a model and nothing else, so the task is asked. A feasibility, how-many, how-much, compare or what-if
      question, a quantised format, a context length or a concurrency implies serving and is answered as inference.
    - "train" without a method ("how many GPUs to train a 13B model?"): LoRA, full or pre-training differ ten-fold
      (unless the token count is 10B or more: only pre-training reads that many).
"""

from __future__ import annotations

import re
from typing import Literal

from advisor.conversation.reader.cues import words
from advisor.conversation.reader.slots import Slots

INTENTS = ("feasibility", "how_many", "how_long", "how_much", "which", "compare", "market", "claim", "explain",
           "what_if", "capabilities", "other")
# intents whose answer has a deciding number the first sentence must carry (benchmarks/bench_first_screen.py)
NUMBERED = ("feasibility", "how_many", "how_long", "how_much")
# intents that imply a serving job when no task word is given (the rule above)
IMPLY_INFERENCE = ("feasibility", "how_many", "how_much", "compare", "what_if")
# intents the catalog, the rules and the claims data answer without a model
CATALOG_ONLY = ("market", "claim", "compare", "explain", "how_much", "which")

_CLAIM = re.compile(r"文章|教程|指南|攻略|博客|帖子|网上|有人说|别人说|据说|听说|号称|宣称|说是|看到.*说|"
                    r"\bguide\b|\barticle\b|\bblog\b|\btutorial\b|someone (?:said|says|told)|they say|i read|i saw|"
                    r"\bclaims?\b|\bsays?\b|\bsaid\b|according to|is it true|是真的吗|对吗|对不对|准确吗|靠谱吗")
_WHAT_IF = re.compile(r"^\s*(?:那|那么|如果|假如|要是|换成|改成|改为|改用|用|再|只有|if|what if|and if|how about|what about|"
                      r"instead|suppose|with only|only)|(?:呢\s*[?？]?\s*$)|what if|instead of|换成|改成|改为|改用")
_EXPLAIN = re.compile(r"为什么|为啥|怎么算|如何算|怎么来的|哪来的|解释|依据|\bwhy\b|how (?:is|was|do you|did you) .{0,30}"
                      r"(?:computed|calculated|get|arrive|derive)|where (?:does|do|did) .{0,80}? come from|explain|breakdown|"
                      r"break (?:it|that|this) down|what makes up|walk me through|从哪来|从哪里来|怎么得出|构成")
_MARKET = words(zh=r"采购|买得到|买到|买不买得到|能买|还能买|可以买|有货|缺货|禁售|禁运|出口管制|管制|限制|供货|在售|停售|"
                  r"卖到|卖给|卖进|进口|出口|运到国内|运进|发货到|国内(?:能|可以|有)|到货|交期|交货|货期|发货",
               en=r"available|availability|in stock|export|ban(?:ned)?|restricted|can (?:i|we) (?:still )?"
                  r"(?:buy|get|purchase)|(?:chinese|china-based|china based) (?:companies|company|customers?|firms?|clients?|buyers?)|"
                  r"can (?:a|an|our|my|the) [\w\s-]{0,30}?(?:buy|get|purchase|import)|still (?:buy|sold|get|purchase|procure)|legal to|purchase|procure|"
                  r"sold in|on sale|for sale|on the market|(?:ship|import|deliver|sell|export)\w* [^.?!]{0,40}?(?:to|in|into) "
                  r"(?:mainland )?(?:china|beijing|shanghai|shenzhen|guangzhou|hangzhou|chengdu)|"
                  r"lead[\s-]?times?|delivery (?:time|date)s?|how (?:long|soon) (?:to|until|before) (?:deliver|ship|arrive|get)")
_IN_CHINA = re.compile(r"(?<![a-z])(?:in|into) (?:mainland )?china(?![a-z])")
_COMPARE = words(zh=r"对比|比较|相比|哪个|哪款|还是|差不多|区别|差距|比.{1,12}(?:快|慢|好|强|便宜|贵)|代替|替代|取代|而不是|而非|"
                    r"(?:和|跟|与|同)\S{1,16}?比|比起来|怎么选|选哪|pk",
                en=r"vs\.?|versus|compare[ds]?|comparison|better|faster|or|worth (?:it|the \w+) over|rather than|"
                   r"instead of|in place of|in lieu of|as opposed to|differences?|differ|between")
_HOW_LONG = re.compile(r"多久|多长时间|多少天|几天|几个小时|几小时|多少小时|耗时|要多长|how long|how many (?:days|hours|weeks)|"
                       # compute time asked in GPU-time units: "how many A100 days", "how many GPU-hours", "多少卡时"
                       # ("how many H100s for 60 days?" asks a count that finishes in 60 days: no number, no "for")
                       r"how many (?:(?!(?:for|in|within|over)\b)[a-z][\w+.]*[\s-]+){0,3}?(?:gpu[\s-]*)?(?:days|hours)\b|"
                       # "GPU-hours to LoRA a 72B …", "GPU hours needed for …", "total GPU-hours?"
                       r"(?<![a-z])gpu[\s-]*hours?\s+(?:to|for|needed|required|would|will|does|do|it takes)\b|"
                       r"(?:total|estimated?|how much) gpu[\s-]*hours?|gpu[\s-]*hours?\s*\?|"
                       r"多少\s*(?:个)?\s*(?:卡时|卡天|机时|gpu\s*(?:时|小时|天)|[a-z]*\d+\s*(?:卡时|卡天|小时|天))|"
                       r"time (?:to|for|needed|required)(?: to)? (?:train|finish|do|run|complete|fine[\s-]*tune|pre[\s-]*train)|"
                       r"estimat\w* (?:the |my )?(?:training |fine[\s-]*tuning )?(?:time|duration)|time estimate|"
                       r"how fast (?:can|will|would) .{0,20}train|wall[\s-]*clock|"
                       # "what's the fastest I could train …", "the quickest we can pre-train …", "最快多久"
                       # a run's GPU-hours set against the makers' ("和 Meta 公布的 GPU 小时比", "vs Meta's published
                       # GPU-hours"); not a price per GPU-hour ("每 GPU 小时", "GPU 小时单价")
                       r"(?<!每)(?<!每 )(?:gpu|卡)\s*(?:小时|时数)(?!\s*(?:单价|价格|费用|多少钱|成本|租金|的价))|"
                       r"(?:published|reported|official)\s+(?:[\w'’-]+\s+){0,2}gpu[\s-]*hours?|"
                       r"(?:fastest|quickest|soonest|shortest time) (?:that )?(?:i|we|you|one) (?:could|can|would|might) "
                       r"(?:train|pre[\s-]*train|fine[\s-]*tune|finish|run)|最快(?:能|可以)?(?:多久|几天)|"
                       # "what would pre-training X cost in time", "the time cost of …": a duration, not money
                       r"cost\w* in (?:time|days|hours|wall[\s-]*clock)|time[\s-]*cost|"
                       # "… with 32 A100s — days?", "8 H100s, time?": the unit or "time" asked alone at the end
                       r"(?:^|[,;:—-]\s*)(?:days|hours|weeks|time|duration|eta)\s*\?+\s*$")
_HOW_MANY = re.compile(r"几张|多少张|几块|多少块|几台|多少台|几卡|多少卡|多少个\s*gpu|几个\s*gpu|how many (?:gpus?|cards?|"
                       r"h\d+s?|a\d+s?|l\d+s?|rtx|\d{4}s?|[a-z]{1,3}\d{2,4}[a-z]?s?|servers?|nodes?|of them|"
                       # "how many Gaudi 3 cards", "how many Ascend 910B", "how many Mac Studios"
                       r"(?:[\w+.-]+\s+){1,4}(?:gpus?|cards?|accelerators?|chips?|npus?|machines?|units?|boxes)\b|"
                       r"(?:intel\s+)?gaudi|(?:huawei\s+)?ascend|mac\s*(?:studio|mini)s?|dgx|(?:amd\s+)?instinct)|"
                       r"number of (?:gpus?|cards?)|number of [a-z0-9 -]{1,20}(?:needed|required)|需要几|要几|"
                       # "the fewest H100 GPUs that can …", "minimum number of A100s", "least amount of cards"
                       r"(?<![a-z])(?:fewest|min(?:imum)?|least|smallest)\s+(?:number|count|amount)\s+of\b|"
                       r"(?<![a-z])fewest\s+(?:[\w+.-]+\s+){0,3}?(?:gpus?|cards?|accelerators?|chips?|npus?|[abhl]\d{2,3}s?)\b|"
                       # "…, how many?", "how many would I need?", "how many of those": the count of the card named
                       r"(?<![a-z])how many(?:\s+(?:do|would|will|should|must)\s+(?:i|we|you)(?:\s+(?:need|want))?)?\s*(?:[?？]|$)|"
                       r"(?<![a-z])how many (?:do|would|will|should) (?:i|we|you) need|(?<![a-z])how many of (?:those|these|them)|"
                       r"(?<![a-z])how many (?:would|will|does|do|might) (?:it|that|this|they) (?:take|need)|"
                       # the card said before ("our cluster is all A100 — how many to fine-tune …", "how many for 405B")
                       r"(?<![a-z])how many (?:to|for|are needed|needed|are required|required|does it take|will it take)"
                       r"(?![a-z])")
# "how many users can it serve / 能服务多少人": the most concurrent sequences of a configuration (a how_many answer)
_HOW_MANY_USERS = re.compile(r"多少人|多少个人|多少用户|多少路|多少并发|几路|几个人|最大并发|并发上限|并发(?:能|可以)?(?:到|开到)?多少|"
                             # "最多几个并发", "能开几个会话", "并发能到几个": a count of users or sessions asked with 几
                             r"几个?(?:并发|用户|会话|连接)|多少个?(?:会话|连接)|并发(?:最多)?(?:能|可以)?(?:到|开到|开|跑|上)?几个?(?![\u4e00-\u9fff])|"
                             # "能同时服务多少个 Qwen2.5-14B 用户", "同时支持多少": users, the model named between
                             r"同时(?:服务|支持|接待|容纳)(?:多少|几)|多少个\s*[a-z0-9.\-_]{0,25}\s*用户|"
                             r"(?:撑|扛|带|承载|支撑)(?:得住)?(?:多少|几)|(?<![a-z])how many (?:users|people|"
                             r"concurrent|requests|sequences|sessions|(?:chat|user) (?:sessions|users|streams)|"
                             r"(?:chats|conversations|streams|clients|customers|seats|agents)(?= (?:can|could|at|"
                             r"on|with|before|while|simultaneously|concurrently|at once))|"
                             r"(?:simultaneous|parallel|concurrent) (?:users|requests|chats|sessions|streams|conversations))|"
                             r"(?:max(?:imum)?|largest|highest|greatest|biggest) (?:possible )?"
                             r"(?:number of )?(?:concurrent |simultaneous |parallel )?"
                             r"(?:concurrency|users|requests|sessions|streams|connections|chats|conversations|clients)(?![a-z])|"
                             r"the most (?:concurrent |simultaneous |parallel )?(?:users|requests|sessions|streams)(?![a-z])|"
                             # "the concurrency limit", "a user cap", "limit on concurrent users"
                             r"(?:concurrency|concurrent[\s-]users?|user|users|load) (?:limit|cap|ceiling)(?![a-z])|"
                             r"(?:limit|cap|ceiling) (?:on|of|for) (?:the )?(?:concurrency|concurrent users|users)(?![a-z])|"
                             # "at what concurrency does it stop meeting 50 ms TTFT?", "what concurrency can it sustain"
                             r"(?:at|to|up to|until) what (?:concurrency|load|(?:number|count) of (?:(?:simultaneous|concurrent|parallel|active) )?"
                             r"(?:users|requests|sessions|streams|people))|"
                             r"(?:what|how much) concurrency (?:can|could|does|do|will|would|is|before)")
# "what's the max context on one 4090?", "最长能开多少上下文": the longest context that fits, not a fit verdict
_MAX_CONTEXT = re.compile(r"最长(?:的)?上下文|最大(?:的)?上下文|上下文(?:最长|最大|最多)|上下文(?:能|可以)?(?:开|支持|跑)?(?:到)?多(?:长|大|少)|"
                          r"能开多(?:长|大)|最长能(?:开|跑|支持|放)?多(?:少|长|大)|多(?:长|大|少)的?上下文|"
                          r"(?<![a-z])(?:max(?:imum)?|longest|largest|biggest)\s+(?:possible\s+)?"
                          r"(?:context|sequence length|seq(?:uence)? len)|how (?:long|large|big) (?:a |of a )?(?:context|"
                          r"sequence)|how many tokens of context|how much context|what context(?: length| size| window)? can|"
                          # "what sequence length can I fit for QLoRA …", "the longest sequence I can train"
                          r"what (?:max(?:imum)? )?(?:sequence length|seq(?:uence)? len|max(?:imum)? length) (?:can|could|will|would|fits?)|"
                          r"(?<![a-z])(?:longest|max(?:imum)?) (?:training )?sequences?(?![a-z])")
# "how much does chunked prefill help TTFT?", "how much would FP8 speed it up?": an effect asked, not a price
_HELPS = (r"[^?.!]{0,50}?(?<![a-z])(?:help|helps|improve|improves|speed|speeds|reduce|reduces|cut|cuts|lower|lowers|"
          r"change|changes|matter|matters|affect|affects|gain|gains|slow|slows|boost|boosts|hurt|hurts)(?![a-z])")
_HOW_MUCH = words(zh=r"多少钱|价格|价钱|报价|报个价|报一下价|什么价|行情|租金|月租|时租|多贵|花多少|成本|费用|预算够|电费|折旧|总拥有成本|tco|要花|开销|投入多少",
                 en=r"how much (?:does|do|would|will|is|are|money|to|for|per)(?![a-z])(?!" + _HELPS + r")|price|cost|costs|quote|tco|"
                    r"set (?:me|us) back|going for|selling for|electricity|power bill|ballpark|pricing|"
                    r"(?:hourly|daily|monthly|rental) rates?|rates? (?:for|per)|how much\s*[?？.!]*\s*$")
_YES_NO = re.compile(r"^\s*(?:can|could|will|would|does|do|is|are|should)(?![a-z]).*[?？]\s*$", re.S)
_PRICE_ASKED = words(zh=r"多少钱|报价|报个价|什么价|行情|价格最低|最低价",
                    en=r"how much (?:would|will|does|do|is|are|money|for|per)(?![a-z])|what(?:'s| is| would be| will be) the (?:price|cost)|"
                       r"set (?:me|us) back|going for|selling for|pricing|(?:hourly|daily|monthly|rental) rates?|"
                       r"price of|cost of")
_FEASIBLE = words(zh=r"够不够|够吗|够用|够了|能[^，。；？?！!]{0,40}吗|能跑|跑得动|跑得起|能不能|能否|可不可以|可以吗|行吗|行不行|放得下|"
                    r"装得下|装下|放下|塞得下|能装|能放|能开|能用|吃得下|撑得住",
                 en=r"fits?|fitting|enough|can (?:i|we|it|this|that|one|a|my|our|they)|could (?:i|we|it)|"
                    # "how long would it take", "what will it cost": the time or price asked, not whether it can
                    r"(?:will|would) (?:it|this|that)(?! (?:take|cost|need|require|last|be to|come to|set us back))|"
                    r"is (?:it|this|that|one) (?:enough|possible|feasible)|"
                    r"possible|feasible|able to|run on|handle")
_WHICH = re.compile(r"什么卡|什么显卡|什么gpu|哪种|哪张|哪块|哪些卡|选什么|买什么|用什么|推荐|选卡|配置什么|怎么配|"
                    r"(?<![a-z])(?:which|what) (?:other |else |kind of )?(?:gpus?|cards?|hardware|setup|server|configuration|rig|box|build|"
                    r"machine|workstation)(?![a-z])|(?<![a-z])best (?:rig|box|build|machine|workstation|setup|gpu|card)s?(?![a-z])|"
                    r"what else|recommend|"
                    r"what (?:do|should) (?:i|we) (?:buy|get|use)|what (?:gpu|hardware)|"
                    # "what's the cheapest GPU that runs …", "which is the best card for …": a card asked for
                    r"(?<![a-z])(?:what(?:'s| is)|which(?:'s| is)) the (?:cheapest|best|fastest|smallest|most affordable|"
                    r"least expensive|minimum) (?:gpus?|cards?|hardware|setup|option|configuration|machine)(?![a-z])|"
                    r"最便宜的(?:显)?卡|最便宜的(?:配置|方案)")
_PICK = words(zh=r"哪个|哪款|哪种|哪一|选哪|报哪", en=r"which")
_CAPABILITIES = words(zh=r"你能做什么|你会做什么|你会什么|你能干什么|你可以做什么|你能帮我做什么|你能帮我什么|你有什么功能|"
                        r"你是做什么的|你是干什么的|怎么用你|能帮什么忙",
                     en=r"what can you do|what do you do|what are you (?:for|able to do)|what can i ask|how can you help|"
                        r"what (?:kinds?|sorts?|types?) of (?:questions|things)|"
                        r"what are your capabilities|what is this (?:bot|tool|app) for")
_SPEED_QUESTION = words(zh=r"预填(?:充)?[^，。？?]{0,16}(?:多久|多长时间|几秒|时间|速度|耗时)|每秒[^，。？?]{0,8}(?:token|字|词)|多少\s*tokens?\s*/\s*s|速度\s*(?:有|能|能有|大概|大约|约|差不多|一般)?\s*(?:有)?多(?:少|快)|多快|生成速度|"
                               r"吞吐(?:量)?\s*(?:能|可以|最多|大概|大约|最高)?\s*(?:到|达到|跑到|做到|有|是)?\s*(?:多少|多高|多大)|"
                               # "卡不卡 / 会不会卡 / 流畅吗 / 速度够吗": is it fast enough to use (not "卡" the card)
                               r"卡不卡|会不会(?:很)?卡|会(?:很|不会)?卡(?:吗|嘛|么|顿)|卡顿|不卡|流畅|顺畅|丝滑|慢不慢|会不会(?:很)?慢|"
                               r"会(?:很)?慢(?:吗|嘛|么)|快不快|速度(?:怎么样|如何|够|行|可以)|"
                               # "…上推理速度？": the speed asked with nothing after it
                               r"(?:推理|生成|解码|输出|运行)速度\s*(?:呢|是)?\s*[?？]?\s*$|够快|响应(?:速度|快)|延迟(?:高|大|多少|怎么样)|"
                               r"首\s*(?:token|字)\s*(?:延迟|时间)?\s*(?:要|是|有|大概)?\s*(?:多少|多久|多长|几)|ttft|"
                               # a first-token target stated ("首字延迟要在500ms以内…行吗"): the answer opens with it
                               r"首\s*(?:个\s*)?(?:token|字|包)\s*(?:延迟|时延|时间|响应)?\s*(?:要|需要|在|控制在|不超过|低于|小于)*\s*\d|"
                               r"首\s*(?:个\s*)?(?:token|字|包)\s*(?:延迟|时延|时间)\s*(?:呢|如何|怎样|咋样)?\s*[?？]?\s*$|"
                               # the time between tokens: "每个 token 多少毫秒", "出字速度", "tpot"
                               r"每\s*(?:个\s*)?(?:token|字)\s*(?:要|需要|大概|是)?\s*(?:多少|几)\s*(?:毫秒|ms)|出字速度|吐字(?:速度)?|"
                               r"(?<![a-z])tpot(?![a-z])|token\s*间隔|字间延迟|"
                               # "TPS 能到多少": tokens per second (a request rate is QPS/RPS)
                               r"(?<![a-z])tps\s*(?:能|可以)?(?:到|有|是|达到)?\s*(?:多少|几)",
                        en=r"tokens? (?:per|a|/) ?(?:second|sec)\b|tokens?\s*/\s*s(?:ec)?\b|tok/s|how fast|what (?:decode |generation |output |inference )?speed|"
                           r"how quick(?:ly)?|throughput (?:will|would|do|does|can|of|at|on|for)|what(?:'s| is)? (?:the )?throughput|"
                           # "what is the decode throughput at batch 256", "what's the expected generation speed"
                           r"what(?:'s| is| are| would be| will be) (?:the |my |our |its )?(?:expected |typical |realistic |likely )?"
                           r"(?:decode|decoding|generation|output|inference|token|aggregate|total|overall|peak|per[\s-]user) "
                           r"(?:speed|throughput|rate)(?![a-z])|"
                           r"throughput\s*[?？]|tokens?/sec\b|tps\s*[?？]|what tps\b|"
                           r"fast enough|quick enough|"
                           r"laggy|lag|lagging|sluggish|slow|snappy|responsive|smooth(?:ly)?|usable speed|"
                           r"what latency|how (?:long|much) latency|latency (?:be|like)|ttft|"
                           # "what's the latency for 100k-token prompts", "how bad is the latency"
                           r"(?:what(?:'s| is| are| will be| would be)|how (?:high|bad|low|long)(?: is| will be| would be)?) "
                           r"(?:the |my |our |its )?(?:expected |typical |average |median )?latenc(?:y|ies)(?! target)|time[\s-]to[\s-](?:the[\s-])?first[\s-]token|"
                           # the prompt's processing, the part of the first token's wait a long prompt makes
                           r"(?:how long|time|seconds?|fast)[^.?!\n]{0,30}(?<![a-z])pre-?fill|(?<![a-z])pre-?fill(?:ing)? "
                           r"(?:time|speed|latency|rate|throughput|take)|"
                           r"first[\s-]token (?:latency|time)|(?:until|till|before|to get) (?:the )?first token|first token (?:comes?|arrives?|appears?)|"
                           # "per-user speed at 6 chats?", "speed per user": the speed, asked by its subject
                           r"(?:per[\s-](?:user|stream|request|person|seat)|each user'?s?|single[\s-]user) "
                           r"(?:speed|throughput|rate|tokens?/s|tok/s)|speed (?:per|for each|for every|of each) "
                           r"(?:user|stream|request|person|seat)|"
                           # the time between tokens: "time per output token", "TPOT", "ITL", "ms per token"
                           r"time per (?:output )?token|(?<![a-z])tpot(?![a-z])|(?<![a-z])itl(?![a-z])|inter[\s-]token latency|"
                           r"(?:per[\s-]token|token[\s-]to[\s-]token|decode) latency|time between tokens|"
                           r"how many (?:ms|milliseconds) (?:per|a|for each) token")
# "Do I need NVLink for 70B on 4 GPUs?", "两张 4090 需要 NVLink 吗", "is NVLink worth it", "没有 NVLink 行不行": the
# answer opens with whether the job needs the link between the cards (advisor.analysis.interconnect)
_LINK_QUESTION = re.compile(
    r"(?:need|require|necessary|needed|required|worth|matter|important|essential|must|have to|benefit|help|without|"
    r"without an?|is there|does|do)[^.?!。？]{0,40}(?<![a-z])nvlink(?![a-z])|"
    r"(?<![a-z])nvlink(?![a-z])[^.?!。？]{0,30}(?:necessary|required|needed|worth|matter|important|essential|help)|"
    r"nvlink[^，。？?]{0,12}(?:需要|必要|必须|有用|有没有用|有啥用|有什么用|值得|值不值|重要|要不要|必不必要|影响大|"
    r"有多大(?:影响|区别|帮助)|吗|么|嘛)|(?:需要|必要|必须|要不要|需不需要|是否需要|没有|不用|不加|不带)[^，。？?]{0,12}nvlink")
# "how many servers / machines / nodes", "几台", "多少台服务器": the count answered in servers, not cards
_SERVER_QUESTION = words(zh=r"几台|多少台|几个节点|多少个节点|几台服务器|多少服务器|几台机器|多少机器|几套|多少套|几组|多少组",
                         en=r"how many (?:[\w.-]+ ){0,2}(?:servers?|machines?|nodes?|boxes|hosts?|instances?|copies|replicas|"
                            r"deployments|clusters|sets|pods)(?![a-z])|number of (?:servers|machines|nodes|copies|replicas)|"
                            # "if we rent g6e.48xlarge boxes, how many do we need": the count asked of the boxes said first
                            r"(?:servers?|machines?|nodes?|boxes|hosts?|instances?)(?![a-z])[^?!;]{0,60}?"
                            r"how many (?:do|would|will|should|shall) (?:we|i|you) (?:need|want|have to (?:rent|buy))")
# "cost per million tokens", "cheaper per token", "每百万 token 成本": the cost of each generated token, not the purchase
# "per token" alone is as often a latency ("30 ms per token", "每个 token 30 毫秒"): a cost word must be near it;
# "per million tokens" / "每百万 token" is a price unit by itself
_COST_WORD = r"(?:cost|costs|price|priced|pricing|spend|cheap\w*|expensive|dollars?|money|pay|usd|\$)"
TOKEN_COST = re.compile(rf"per (?:million|1m|thousand|1k) (?:output )?tokens?|{_COST_WORD}[^.?!;]{{0,30}}per[- ](?:output[- ])?token|"
                        r"per[- ]token[^.?!;]{0,20}(?:cost|price|pricing|spend)|cost per (?:million )?tokens?|"
                        r"\$/\s*m?tok|每\s*(?:百万|千|万)\s*(?:个)?\s*(?:输出\s*)?token|token\s*(?:的)?\s*(?:成本|费用|价格)|单位\s*token|"
                        r"每\s*(?:个)?\s*(?:输出\s*)?token[^，。？?]{0,10}(?:成本|费用|价格|多少钱|几(?:分|毛)钱)|"
                        r"(?:百万|每千|每万)\s*个?\s*tokens?.{0,8}?(?:要|花|多少钱|成本|费用)|"
                        r"\b(?:a|one|1|each|every)\s*(?:million|m)\s+(?:output\s+)?tokens?\b.{0,50}\bcost|"
                        r"\btokens?[- ](?:cost|price|pricing)s?\b|\bcost of (?:the |each |a |one )?(?:generated |output )?"
                        r"tokens?\b|\bprice per (?:output )?tokens?\b|\$\s*/\s*(?:1m|million)|\b(?:cost|price) per (?:1m|million)\b|"
                        # a volume over time with a cost word: "5 million tokens per day … cost on H200?"
                        r"\btokens?\s*(?:a|per|/|each)\s*(?:day|month)\b.{0,60}\b(?:cost|price|spend|pay)|"
                        r"\b(?:cost|price|spend|pay)\w*\b.{0,60}\btokens?\s*(?:a|per|/|each)\s*(?:day|month)\b|"
                        r"每\s*(?:天|日|月)\s*\d[\d.,]*\s*(?:万|亿)?\s*(?:个)?\s*tokens?.{0,40}?(?:多少钱|成本|费用|花多少|要多少)|"
                        r"how much (?:is|are|for|does|would)\s+(?:a|one|1|each|every)\s*(?:million|m)\s+(?:output\s+)?tokens?\b|"
                        r"\bcost.{0,40}\b(?:a|one|1|each|every)\s*(?:million|m)\s+(?:output\s+)?tokens?\b", re.I)
_MEMORY_QUESTION = words(zh=r"多少显存|多大显存|显存多少|需要多少|"
                               # "显存要多少", "显存占用大概多大", "显存至少要多少"
                               r"显存\s*(?:占用|需求|要求)?\s*(?:大概|大约|至少|起码|最少)?\s*(?:要|需要|得|占)\s*多(?:少|大)|占多少|占多大|(?:每条|每个|一条|一个)\s*(?:序列|请求)[^，。？?]{0,8}多大|"
                               r"显存(?:要求|需求)|最(?:少|低)(?:需要|要)?显存",
                         en=r"how much (?:memory|vram|gpu memory)|(?:min(?:imum)?|least) (?:amount of )?(?:gpu )?(?:memory|vram)|"
                            r"(?:memory|vram) (?:do (?:i|we) need|is needed|needed|required|requirements?)|how many gb (?:of )?(?:vram|gpu memory)")


_EACH = re.compile(r"各|分别|每种|(?<![a-z])(?:each|respectively)(?![a-z])|of each")


def classify(text: str, slots: Slots, *, follow_up: bool = False) -> str:
    """The intent of `text` given what `extract` read from it (`slots`); `follow_up`: an answer came before.

    First match wins, in this order: capabilities (nothing named), claim, market (cards, no model), compare (two
    or more cards or an "A or B" question), explain, how_long, how_many, how_much, feasibility, what_if (a follow-up that only changes
    something), which, other."""
    return _classify(text, slots, follow_up)[0]


def from_cue(text: str, slots: Slots, *, follow_up: bool = False) -> bool:
    """Whether the intent was read from a cue word or phrase of the message ("how long", "几张", "why", "vs", a
    quoted claim, two named models …) rather than guessed from the job's shape alone ("Gemma 27B on a 4090?")."""
    return _classify(text, slots, follow_up)[1]


def _classify(text: str, slots: Slots, follow_up: bool) -> tuple[str, bool]:
    got = _by_cue(text, slots, follow_up)
    if got is not None:
        return got
    return _job_shape(slots, len(slots.candidates) + (1 if slots.existing else 0)), False


def _by_cue(text: str, slots: Slots, follow_up: bool) -> tuple[str, bool] | None:
    s = (text or "").lower()
    gpus = len(slots.candidates) + (1 if slots.existing else 0)
    has_model = slots.model is not None
    if _CAPABILITIES.search(s) and not gpus and not has_model and slots.size_params is None:
        return "capabilities", True
    if slots.claim is not None or (_CLAIM.search(s) and re.search(r"\d", s) and not _WHAT_IF.match(s)):
        return "claim", True
    if (_MARKET.search(s) or (_IN_CHINA.search(s) and not _HOW_MUCH.search(s))) and gpus and not has_model:
        return "market", True  # "MI300X in China?": its status there ("how much are H100s in China": the price)
    if gpus >= 2 and (_COMPARE.search(s) or _PICK.search(s)) and (not _HOW_MANY.search(s) or _EACH.search(s)):
        return "compare", True  # ("H100 和 L40S 选哪个，各要几张？": both cards, each at the count it takes)
    if _EXPLAIN.search(s) and not _FEASIBLE.search(s) and not _WHICH.search(s):
        return "explain", True
    if _HOW_LONG.search(s):
        return "how_long", True
    if _HOW_MANY.search(s) or _HOW_MANY_USERS.search(s) or _SERVER_QUESTION.search(s):
        return "how_many", True
    if _HOW_MUCH.search(s) and (not _FEASIBLE.search(s) or _PRICE_ASKED.search(s)):
        return "how_much", True
    if (gpus or slots.capacity) and _YES_NO.match(s) and (has_model or slots.size_params):
        return "feasibility", True  # "Can Mixtral-8x22B run in INT4 on 4x RTX 4090?": a yes/no question about the hardware
    if _WHICH.search(s) and not gpus and not slots.capacity:
        return "which", True  # "除了 4090，还有什么卡能跑…？": no card named, so the question is which card
    if _MEMORY_QUESTION.search(s) and not _FEASIBLE.search(s) and not gpus and not slots.capacity:
        return "explain", True  # "Qwen2.5-72B 推理需要多少显存？": the memory need and where it comes from (no hardware to judge)
    if _FEASIBLE.search(s) or _MEMORY_QUESTION.search(s):
        return "feasibility", True
    if follow_up and _WHAT_IF.search(s):
        return "what_if", True
    if follow_up and not has_model:
        return "what_if", False  # a follow-up that names no model: a change to the job, whatever its words
    if _WHICH.search(s):
        return "which", True
    if _MARKET.search(s) and gpus:
        return "market", True
    return None


def _job_shape(slots: Slots, gpus: int) -> str:
    """A message with no question cue that describes a job ("Serve Qwen2.5-72B to 50 users with 8k context",
    "Gemma 27B on a 4090?"): which configuration when no card is named, whether it fits on one named
    configuration, both sides when two are named."""
    job = slots.model is not None or slots.size_params is not None or slots.unknown_model is not None
    if not job:
        return "other"
    gpus += len(slots.unknown_gpus)  # "B300 for Llama-3.1-405B?": about that card, which the answer says it lacks
    if gpus >= 2:
        return "compare"
    if gpus == 1 or slots.capacity is not None:
        return "feasibility"
    described = (slots.task is not None or slots.task_generic is not None or slots.concurrency is not None
                 or slots.headcount is not None
                 or slots.context is not None or slots.qps is not None or slots.weights is not None)
    return "which" if described else "other"


# "what batch size can I use?", "batch size 最大能开多少": the largest micro-batch (training) or concurrency that fits
_BATCH_QUESTION = re.compile(r"(?<![a-z])(?:what|which|max(?:imum)?|largest|biggest|how (?:big|large)(?: of)?(?: a)?)\s+"
                             r"(?:micro[\s-]?)?batch(?:[\s-]?sizes?)?(?![a-z])|(?<![a-z])(?:micro[\s-]?)?batch[\s-]?sizes? "
                             r"(?:can|could|should|will|would|fits?|do)(?![a-z])|how many (?:samples|sequences|examples) per "
                             r"(?:batch|step)|(?:最大|最多)\s*(?:的)?\s*(?:micro[\s-]?)?(?:batch|批)|"
                             r"batch\s*(?:size)?\s*(?:最大|最多|能开多|可以开多|开多|设多|能设多|多大|多少)|"
                             r"(?:微)?批(?:次)?(?:大小)?\s*(?:最大|最多|能开多|可以开多|开多|设多|多大)|能开多大的?\s*(?:batch|批)")


def implies_inference(intent: str, slots: Slots, text: str = "") -> bool:
    """The rule above, second bullet: does this message imply a serving job although it names no task? ("how much
    memory does X need?" alone does not: memory differs ten-fold between serving and training.)"""
    if slots.task is not None or slots.task_generic is not None:
        return False
    memory_only = intent == "feasibility" and not _FEASIBLE.search((text or "").lower()) and not (
        slots.candidates or slots.existing or slots.capacity)
    if intent in IMPLY_INFERENCE and not memory_only:
        return True
    weights = slots.weights
    return bool(weights and weights not in ("bf16", "fp16", "fp32")) or slots.context is not None


# "is the A100 still worth buying?", "A100 还值得买吗": a value verdict for the card (advisor.analysis.value)
_VALUE_QUESTION = re.compile(r"(?<![a-z])(?:worth (?:it|buying|getting|purchasing|the (?:money|price|investment))|"
                             r"should (?:i|we) (?:still )?(?:buy|get|purchase|invest in)|good (?:buy|value|deal|investment)|"
                             r"(?:still|a) (?:good|smart|sensible) (?:buy|purchase|choice|investment)|"
                             r"value for (?:the )?money)(?![a-z])|值得买|值不值得|还值得|值得入手|值得购买|值得入|还香吗|还能打吗|"
                             r"划算吗|划不划算|性价比")


# "why does 70B need two GPUs?", "为什么 70B 要两张卡": the reason for the count (weights vs one card's memory)
_WHY_COUNT = re.compile(r"(?<![a-z])(?:why (?:does|do|would|will|is|are|must|should)\b|how come\b).{0,60}?(?:need|take|require|use|"
                        r"span|split|have)s?\b.{0,20}?(?:two|2|three|3|four|4|eight|8|multiple|several|more than one|"
                        r"\d+)\s*(?:x\s*)?(?:[\w-]+\s+)?(?:gpus?|cards?|accelerators?)|why (?:can't|cannot|won't|doesn't)"
                        r" .{0,60}?(?:fit|run) on (?:one|a single|1) (?:gpu|card)|(?:为什么|为啥).{0,30}?(?:要|需要|得|用|占)"
                        r"\s*(?:两|二|三|四|八|多|几|\d+)\s*(?:张|块|台|(?:个\s*)?(?:卡|gpu|显卡))|(?:为什么|为啥).{0,30}?(?:一张|单卡|单张)"
                        r".{0,6}(?:放不下|装不下|跑不了|不够|不行)")


# What a question asks the answer to open with, each read by its one pattern from the lowered message
# (advisor.conversation.render.lead words the lead; `classify` reads the memory, users and servers patterns too):
#   memory     "How much memory does it need?": the job's total memory need, then what fits it
#   link       "Do I need NVLink for 70B on 4 GPUs?" / "两张 4090 需要 NVLink 吗": whether the job needs a fast link
#              between its cards, and why (advisor.analysis.interconnect)
#   servers    "How many servers do I need …?" / "需要几台服务器": the count of cards answered as servers
#   speed      "How many tokens per second on 2 H100s?" / "每秒能出多少 token？": the speed
#   token_cost "What does a million tokens cost on an L4?" / "每百万 token 成本": the cost per token
#   context    "What's the longest context on one 4090?": the longest context that fits
#   batch      "What batch size can I use?": the largest micro-batch (training) or concurrency that fits
#   users      "How many users can it serve?": the most concurrent sequences, not a GPU count
#   value      "Is the H100 still worth buying?" / "A100 还值得买吗": the card's value per dollar against the newest
#              card of its kind, with its dated price and age
#   why_count  "Why does 70B need two GPUs?": the reason for the count (the weights against one card's memory)
# "the cheapest hardware to run R1", "最便宜的方案": the lowest purchase that fits, before the recommendation
_CHEAPEST = re.compile(r"(?<![a-z])(?:cheapest|least expensive|lowest[\s-]cost|most affordable|as cheap as possible|"
                       r"cheapest possible|on a shoestring|lowest price)(?![a-z])|最便宜|最省钱|成本最低|花钱最少|最低成本|最划算的配置|"
                       r"价格最低|最低价|最实惠|预算最低|最少的钱|有没有更便宜|更便宜的(?:方案|配置|选择|卡)|便宜(?:一)?点的|"
                       r"(?<![a-z])(?:cheaper|less expensive|more affordable) (?:option|alternative|setup|config\w*|one|way|hardware)|"
                       r"(?:something|anything) cheaper")
# "Kimi K2 最低配置是什么", "minimum hardware requirements for R1", "bare minimum to run a 70B": the smallest NEW
# purchase that runs it (the cheapest answer, used cards aside: a minimum configuration is something one can buy and
# build, not a rig of second-hand cards); not "minimum number of GPUs", which asks for a count
_MINIMUM_CONFIG = words(zh=r"(?<!成本)(?<!价格)(?<!费用)(?<!花费)(?<!预算)(?<!功耗)(?<!延迟)(?<!电费)"  # "成本最低的配置": the cheapest
                           r"(?:最低(?:的)?(?:配置|硬件|门槛)|最低(?:的)?(?:要求|需求)(?![\s:：是]*(?:每|\d|首))|最小(?:的)?(?:配置|硬件))|"
                           r"起步配置|入门配置|"
                           r"最低(?:需要|要)什么|至少(?:需要|要)什么(?:配置|硬件|卡)",
                        en=r"(?:bare\s+)?(?:minimum|minimal|min)\s+(?:hardware\s+|system\s+|gpu\s+|vram\s+)?"
                           r"(?:requirements?|reqs|specs?|config(?:uration)?s?|setup|set-up|hardware|rig|build)|"
                           r"bare minimum|bare[\s-]?bones|entry[\s-]level (?:setup|config\w*|hardware|rig)")
# "self-host Llama 3.3 70B or just use an API?", "自建还是调 API 划算": the cheapest hosted API against the sized
# configuration owned, at the daily volume stated (render.api_lead)
_API_VS_SELF = words(zh=r"(?:调|调用|用|接|走)\s*(?:云\s*)?api|api\s*(?:调用|还是|更?划算|更?便宜|价格|费用|成本)|"
                        r"自(?:建|己部署|行部署|部署|托管)还是|还是(?:调|调用|用)\s*(?:api|接口|大模型服务)|按\s*token\s*(?:付费|计费)|"
                        r"私有化部署还是|(?:直接|还是)\s*(?:买|用|调|调用|接)\s*(?:现成的?\s*)?api",
                     en=r"(?:or|vs\.?|versus|against|compared (?:to|with)|instead of)\s+(?:just\s+)?(?:(?:using|use|calling|call|paying for|pay for|going with|go with)\s+)?"
                        r"(?:an?\s+|the\s+)?(?:[\w.-]+\s+){0,2}apis?(?![\w-])|"
                        r"apis?\s+(?:or|vs\.?|versus)\s+(?:self[\s-]?host\w*|run(?:ning)? (?:it )?(?:ourselves|myself|on[\s-]?prem\w*)|"
                        r"buy(?:ing)? (?:our own |my own )?(?:gpus|hardware|cards|servers)|deploy\w*|host\w* (?:it )?ourselves|"
                        r"(?:our|my) own (?:gpus|hardware|servers))|(?:just|simply) (?:use|call|pay for|go with) (?:an?\s+|the\s+)?"
                        r"(?:[\w.-]+\s+){0,2}apis?|cheaper than (?:an?\s+|the\s+|using (?:an?\s+|the\s+)?)?(?:[\w.-]+\s+){0,2}apis?|"
                        r"(?:buy|own) (?:gpus|hardware|servers) or (?:use|pay for|call) (?:an? )?apis?|api (?:pricing|prices?|costs?) "
                        r"(?:vs\.?|versus|against|compared)|per[\s-]token api|hosted api|"
                        # "is paying Groq cheaper than …": a hosted provider named, paid or called
                        r"(?:pay(?:ing)?|using|use|call(?:ing)?)\s+(?:for\s+)?(?:groq|together(?:\.ai| ai)?|fireworks|"
                        r"deepinfra|openrouter|bedrock|cerebras|siliconflow)")
# "Do I need InfiniBand for 4 nodes?", "4 台服务器训练需要 IB 网络吗", "is 100GbE enough between the servers": the network
# between servers a training job needs (advisor.analysis.fabric)
_NET = r"(?:infiniband|(?<![a-z])ib(?![a-z])|roce(?:v2)?|rdma|(?:100|200|400|800)\s*g(?:b(?:e|it)?|/s)?(?![a-z0-9])|ethernet|以太网|ib\s*网络?|高速网络?|组网|网络互联|节点间网络|机间网络|服务器间网络|inter-?node network|network between (?:the )?(?:servers|nodes))"
_FABRIC_QUESTION = re.compile(
    rf"(?:need|require|necessary|needed|required|worth|matter|important|essential|must|have to|enough|ok|okay|suffice)"
    rf"[^.?!。？]{{0,40}}{_NET}|{_NET}[^.?!。？]{{0,30}}(?:necessary|required|needed|worth|matter|important|essential|"
    rf"enough|sufficient|ok|okay|fine|good enough)|{_NET}[^，。？?]{{0,16}}(?:需要|必要|必须|值得|重要|要不要|够不够|够吗|"
    rf"够用|行不行|可以吗|影响大|吗|么|嘛)|(?:需要|必要|必须|要不要|需不需要|是否需要|没有|不用|不上)[^，。？?]{{0,12}}{_NET}")
# "How much KV cache does Llama 3.1 8B use per token?", "每个 token 的 KV 缓存多大": the cache of one token, first
_KV_PER_TOKEN = words(zh=r"(?:每个|每|单个|一个)\s*token[^，。？?]{0,10}kv|kv\s*(?:cache|缓存)?[^，。？?]{0,12}(?:每个|每|单个|一个)\s*token",
                      en=r"kv[\s-]*cache[^?!\n]{0,40}(?:per|each|a single|one|1)[\s-]token|per[\s-]token[^?!\n]{0,24}kv(?![a-z])|"
                         r"kv[\s-]*(?:cache\s+)?(?:size|bytes|memory)\s+(?:of|for)\s+(?:one|a|each|1|a single)\s+token")
# "What's the KV cache capacity in tokens on 2x H100?", "KV 缓存能放多少 token": the pool the engine reserves, first
_KV_CAPACITY = words(zh=r"kv\s*(?:cache|缓存)\s*(?:能|可以|最多)?\s*(?:放|存|装|容纳|存下|放下)?\s*(?:多少|几)\s*(?:万|个)?\s*tokens?|"
                        r"kv\s*(?:cache|缓存)\s*(?:的)?\s*(?:容量|总量|空间)",
                     en=r"kv[\s-]*cache (?:capacity|pool|budget|space)|how many tokens (?:of|in|does|can|will|would|fit)"
                        r"[^?!\n]{0,30}kv|kv[\s-]*cache[^?!\n]{0,30}(?:in tokens|how many tokens)|"
                        r"tokens? (?:of|in) (?:the )?kv[\s-]*cache")
# "How many tokens per day can 1 H100 generate?", "一天能生成多少 token": the daily output at full load, first
_TOKENS_PER_DAY = words(zh=r"(?:每天|一天|每日|一日)(?:下来)?\s*(?:最多)?\s*(?:能|可以)?\s*(?:生成|输出|产出|处理|吞吐|跑|出|吐)?\s*(?:多少|几)\s*"
                           r"(?:亿|万|百万)?\s*(?:个)?\s*tokens?|(?:多少|几)\s*(?:亿|万)?\s*tokens?\s*(?:每天|一天|/\s*天)",
                        en=r"how many (?:output )?tokens?[^?!\n]{0,60}(?:per|a|each|every|in a|in one|/)\s*day|"
                           r"(?:tokens?|output)\s*(?:per|a|/)\s*day[^?!\n]{0,40}\?|daily (?:token )?(?:output|capacity|throughput)")
# "What is the power draw of 8 H100s …?", "一年电费多少", "功耗多大": the power and its yearly electricity, first
_POWER = words(zh=r"功耗|耗电|电费|用电量|多少瓦|多少千瓦|多少度电|多大功率|功率多大|功率是多少",
               en=r"power (?:draw|consumption|usage|use|bill|requirements?)|how many (?:watts|kilowatts|kw)(?![a-z])|"
                  r"electricity (?:cost|bill|use|usage)|energy (?:cost|use|usage|consumption|bill)|how much power")
# "启动命令怎么写", "what's the vllm serve command?", "how do I launch it": the engine's launch line, first
_LAUNCH = words(zh=r"启动命令|启动参数|部署命令|运行命令|命令怎么写|命令行怎么|怎么启动|如何启动|启动脚本",
                en=r"(?:launch|serve|run|start(?:up)?|docker) (?:command|cmd|line|flags|arguments|args)|"
                   r"vllm serve (?:command|flags)|how (?:do|should|can) (?:i|we) (?:launch|start) (?:it|the (?:server|engine|model))")
# "what MFU should I expect?", "算力利用率多少": a training run's model-FLOPs utilisation (a stated one, "at 40 % MFU", is
# an input: slots.mfu)
_MFU_QUESTION = words(zh=r"(?:算力利用率|mfu)[^，。]{0,6}(?:多少|多高|能到|大概|几|如何|怎么样)|(?:多少|多高)[^，。]{0,4}(?:算力利用率|mfu)",
                      en=r"(?:what|which|expected?|expect|how (?:much|high)|typical|realistic|achievable|estimated?|"
                         r"estimating|predict(?:ed)?|calculate|compute|tell me|give me)[^?.!\n]{0,40}"
                         r"(?<![a-z])(?:mfu|hfu|model flops utili[sz]ation)(?![a-z])|(?<![a-z])mfu\s*[?？]|"
                         r"(?:^|[.!?;]\s*)(?:and\s+)?(?:the\s+)?(?:mfu|hfu)\s+(?:for|of|when|on|in|with)|"  # "MFU for training …?"
                         # a training run's rate in other words: "what per-GPU token rate is realistic?"
                         r"per[\s-]gpu (?:token )?(?:rate|throughput)|(?<![a-z])token (?:rate|throughput) per gpu")
# "cost per million tokens at full load", "满载时": the figures at the most sequences the cards hold
# A throughput asked with no load stated ("what throughput can 8× H100 reach?", "吞吐能到多少") is the full-load figure
# too: the lead takes it only where no concurrency was said (render.lead)
_FULL_LOAD = words(zh=r"满载|跑满|打满|满负荷|满负载|满并发|高负载|高并发下|最大吞吐|吞吐(?:量)?(?:上限|极限|最高|最大)|峰值吞吐|极限吞吐|"
                      r"吞吐(?:量)?\s*(?:就)?\s*(?:不再|不会再|不能再)?\s*(?:增加|增长|上升|提升)?\s*(?:饱和|见顶|到顶|封顶|上不去)|"
                      r"吞吐(?:量)?\s*(?:就)?\s*(?:不再|不会再)\s*(?:增加|增长|上升|提升)|"
                      r"吞吐(?:量)?\s*(?:能|可以|最多|大概|大约|最高)?\s*(?:到|达到|跑到|做到|有|是)?\s*(?:多少|多高|多大|几)|"
                      r"(?:多少|多大|多高)的?\s*吞吐",
                   en=r"(?<![a-z])(?:at|under|with) (?:high|heavy) (?:load|utili[sz]ation|traffic|concurrency)|"
                   r"(?<![a-z])(?:at|under) (?:full|max(?:imum)?|peak) "
                   r"(?:load|capacity|utili[sz]ation|batch)|fully (?:loaded|utili[sz]ed|saturated)|(?<![a-z])saturat|"
                   r"(?:max(?:imum)?|peak|highest|top|aggregate max(?:imum)?) (?:total |aggregate |output )?throughput|"
                   r"(?:what|how much|how high)(?:'s| is| are| would be| will be)? (?:the |a |its |their )?(?:total |aggregate |"
                   r"overall |output )?(?:token )?throughput(?! per (?:user|request|sequence|stream))|"
                   r"throughput (?:can|could|will|would|does|do|might) (?:[a-z0-9.×x-]+ ){0,4}(?:reach|achieve|get|hit|do|"
                   r"deliver|sustain|manage|push)|(?<![a-z])(?:aggregate|combined) (?:output )?(?:tokens?/s|tok/s|"
                   r"tokens? (?:per|a) second)|"
                   # "at what point does adding users stop increasing throughput?", "where does throughput plateau?"
                   r"stops? (?:increasing|growing|scaling|rising|improving) (?:the )?(?:total |aggregate |overall )?throughput|"
                   r"throughput (?:stops? (?:increasing|growing|scaling|rising)|plateaus?|levels? off|flattens|peaks|tops out)",
                   )
# "how many requests per second can it handle?", "每秒能处理多少请求", "能支撑多少 QPS": the request rate it sustains
_RPS_QUESTION = words(zh=r"每(?:秒|分钟|小时|天)(?:钟)?(?:能|可以|最多)?(?:处理|承载|支持|支撑|扛|接|响应|服务)?(?:住)?(?:多少|几)(?:个|次)?(?:请求|查询|调用)|"
                         r"(?:qps|rps)\s*(?:能|可以)?(?:到|有|是|达到)?\s*(?:多少|几)|(?:多少|几)\s*(?:的)?\s*(?:qps|rps)",
                      en=r"(?:how many|what|max(?:imum)?|how much) (?:[a-z]+ )?(?:requests?|req|reqs|queries|calls|prompts|chats|"
                         r"conversations) ?(?:per|a|an|each|/) ?(?:second|sec|s|minute|min|hour|hr|day)\b|"
                         r"(?:what|how much|max(?:imum)?) (?:qps|rps|rpm)|(?:qps|rps|rpm) (?:can|could|does|will|would|is)|"
                         r"requests? per (?:second|minute|hour|day) (?:can|could|does|will|would|is|it)|"
                         # "what request rate can 2× H100 sustain?", "max request rate it handles"
                         r"(?:what|which|max(?:imum)?|highest|peak|sustainable) (?:request|query|arrival) rate|"
                         r"(?:request|query|arrival) rate (?:can|could|does|will|would)")
# "how long does a 2000-token answer take?", "end-to-end latency of a reply", "生成一个 1000 token 的回答要多久": the
# time of one whole answer (first token, then every token after it)
_E2E_QUESTION = words(zh=r"端到端|(?:一个|一条|一次|完整的?)(?:完整)?(?:的)?\s*(?:\d+\s*k?\s*(?:个\s*)?(?:tokens?|token|字)\s*的?\s*)?"
                         r"(?:回答|回复|答案|输出)\s*(?:要|需要|得)?(?:多久|多长时间|几秒)|(?:回答|回复|生成)(?:完|一次|一遍)?"
                         r"\s*(?:要|需要|得)\s*(?:多久|多长时间|几秒)|"
                         r"(?:生成|输出)\s*\d+\s*k?\s*(?:个\s*)?(?:tokens?|token|字)\s*(?:要|需要|得)\s*(?:多久|多长时间|几秒)",
                      en=r"end[\s-]to[\s-]end|(?<![a-z])e2e(?![a-z])|total (?:latency|response time|time per (?:request|answer))|"
                         r"how long (?:does|will|would|do) (?:it take (?:to (?:get|generate|produce|write|stream) |for )?)?"
                         r"(?:a|an|the|each|one|my|our)?\s*(?:[\d,.]+\s*k?[\s-]*tokens?[\s-]*)?(?:long\s+)?"
                         r"(?:answers?|repl(?:y|ies)|responses?|completions?|generations?|outputs?)|"
                         # "how long does it take to generate 1000 tokens", "time to generate 2k tokens"
                         r"(?:how long (?:does|will|would|do) it take|(?:how much )?time) to (?:generate|produce|write|"
                         r"stream|output|decode) (?:a |an |the )?[\d,.]+\s*k?[\s-]*tokens?")
# "what global batch size and parallelism?", "全局 batch 设多大": the planned run's batch and layout
_GLOBAL_BATCH = words(zh=r"全局\s*(?:batch|批)|global\s*batch|并行策略|并行方式|怎么切分|如何切分|流水线气泡|(?:pipeline\s*)?bubble|空泡",
                      en=r"global[\s-]*batch|(?<![a-z])gbs(?![a-z])|(?:what|which) (?:parallelism|parallel layout|layout|"
                         r"sharding)|parallelism (?:would|should|do) (?:you|i|we)|how (?:would|should) (?:you|i|we) "
                         r"(?:shard|split|parallel)|(?<![a-z])(?:tp|pp|dp|ep)\s*/\s*(?:tp|pp|dp|ep|cp)(?![a-z])|"
                         r"parallel(?:ism)? (?:strategy|config(?:uration)?|plan|degrees?|layout|setup|split)|(?:pipeline )?bubble|"
                         # "the best parallelism layout", "optimal sharding", "recommended TP/PP"
                         r"(?:best|optimal|ideal|right|recommended) (?:parallelism|parallel layout|layout|sharding|"
                         r"(?:tp|pp|dp)(?: size| degree)?)(?![a-z])|"
                         r"dual[\s-]*pipe|zero[\s-]*bubble|(?<![a-z0-9])1f1b(?![a-z0-9])")
# the period a request-rate question counts in ("requests per minute", "每小时多少请求"): seconds per period
_RATE_PERIOD = ((re.compile(r"(?:per|a|an|each|/) ?(?:minute|min)\b|(?<![a-z])rpm(?![a-z])|每分钟"), 60),
                (re.compile(r"(?:per|an|a|each|/) ?(?:hour|hr)\b|每小时"), 3600),
                (re.compile(r"(?:per|a|each|/) ?day\b|每天|每日"), 86400))

# "p99 latency?", "99th percentile TTFT", "tail latency", "P99 首字延迟": the 99th percentiles beside the median
# "p95 TTFT", "95th percentile": the same tail run (its p95 is printed beside the p99)
_P99 = re.compile(r"(?<![a-z0-9])p\s*9[59](?![0-9])|9[59](?:th)?[\s-]*(?:percentile|pct|%\s*分位|百分位|分位)|tail latenc|"
                  r"尾延迟|长尾|worst[\s-]case (?:latency|ttft|wait)")
# "显存够吗", "is the memory enough?", "will it fit?": whether the job fits, asked beside another question
_FITS = words(zh=r"显存(?:够|够用|够不够|足够|充足|放得下|装得下|放不放得下)|放得下吗|装得下吗|放不放得下|够不够用|会不会爆显存|爆显存吗",
              en=r"(?:enough|sufficient) (?:gpu )?(?:memory|vram)|(?:memory|vram) (?:is |be )?(?:enough|sufficient)|"
                 r"(?:will|does|would) (?:it|that|this) fit|fit in (?:the )?(?:memory|vram)|run out of (?:memory|vram)|\boom\b")
# "will it OOM?", "out of memory?", "会爆显存吗", "会不会OOM": whether it fits, asked the other way round (yes = it does not)
_OOM = words(zh=r"爆显存|显存溢出|撑爆|(?:会不会|会|能不能|可能)\s*oom|oom\s*(?:吗|不|么)",
             en=r"(?<![a-z])oom(?:s|ing|ed)?(?![a-z])|out[\s-]of[\s-]memory|run out of (?:gpu )?(?:memory|vram)|"
                r"(?:memory|vram) (?:blow|run)s? (?:up|out)")
Question = Literal["memory", "link", "servers", "speed", "token_cost", "context", "batch", "users", "value", "why_count",
                   "cheapest", "fabric", "kv_token", "kv_capacity", "tokens_per_day", "power", "launch", "mfu", "full_load", "rps",
                   "p99", "fits", "oom", "e2e", "global_batch", "minimum", "api", "time", "cost"]
QUESTIONS: dict[Question, re.Pattern[str]] = {
    "memory": _MEMORY_QUESTION, "link": _LINK_QUESTION, "servers": _SERVER_QUESTION, "speed": _SPEED_QUESTION,
    "token_cost": TOKEN_COST, "context": _MAX_CONTEXT, "batch": _BATCH_QUESTION, "users": _HOW_MANY_USERS,
    "value": _VALUE_QUESTION, "why_count": _WHY_COUNT, "cheapest": _CHEAPEST, "fabric": _FABRIC_QUESTION,
    "kv_token": _KV_PER_TOKEN, "kv_capacity": _KV_CAPACITY, "tokens_per_day": _TOKENS_PER_DAY, "power": _POWER,
    "launch": _LAUNCH, "mfu": _MFU_QUESTION, "full_load": _FULL_LOAD, "rps": _RPS_QUESTION,
    "p99": _P99, "fits": _FITS, "oom": _OOM, "e2e": _E2E_QUESTION,
    "global_batch": _GLOBAL_BATCH, "minimum": _MINIMUM_CONFIG, "api": _API_VS_SELF,
    "time": _HOW_LONG, "cost": _HOW_MUCH,
}


# a percentile followed by a bound is a target, not a question: "p95 <= 3 s", "p99 TTFT under 2 s", "P99 首字延迟不超过 1 秒"
_BOUND_AFTER = re.compile(r"(?:\s*(?:(?:e2e|end[\s-]to[\s-]end|ttft|tpot|itl|latency|time to first token|首字延迟|首 ?token ?延迟|"
                          r"延迟|时延)\s*)*(?:of\s+)?(?:is\s+|should be\s+|must be\s+|needs to be\s+)?"
                          r"(?:<=?|≤|=|:|under|below|within|at most|less than|no more than|≦|不超过|低于|小于|以内|控制在|要在|在|\d))")

# "32k 上下文能开多少并发" asks the users at that context, not the longest context
_USERS_AFTER = re.compile(r"\s*(?:个|路|名)?\s*(?:并发|路|人|用户|请求|会话)")


def asks(question: Question, text: str) -> bool:
    """Whether `text` asks `question` (QUESTIONS above), read from its lowered words."""
    s = (text or "").lower()
    if question == "p99":  # "p95 TTFT?" asks the tail; "p95 latency under 2 s" states a target (targets.py reads it)
        return any(not _BOUND_AFTER.match(s, m.end()) for m in QUESTIONS[question].finditer(s))
    m = QUESTIONS[question].search(s)
    return m is not None and not (question == "context" and _USERS_AFTER.match(s, m.end()))


# the time asked beside the money in words "how long" does not cover: "time and cost?", "cost and duration", "时间和成本"
_TIME_AND_COST = re.compile(r"(?<![a-z])(?:time|duration|wall[\s-]?clock)\s*(?:and|&|\+|/|,)\s*(?:the\s+)?(?:cost|price|money|budget)|"
                            r"(?:cost|price|money)\s*(?:and|&|\+|/|,)\s*(?:the\s+)?(?:time|duration)(?![a-z])|"
                            r"(?:时间|时长|工期)\s*(?:和|与|跟|及|、|/)\s*(?:成本|费用|价格|花费|预算)|"
                            r"(?:成本|费用|价格|花费)\s*(?:和|与|跟|及|、|/)\s*(?:时间|时长|工期)")


def asks_time_and_cost(text: str) -> bool:
    """Whether `text` asks both how long a job takes and what it costs ("how long and how much", "time and cost?",
    "要多久、花多少钱", "时间和成本")."""
    s = (text or "").lower()
    return bool(_TIME_AND_COST.search(s)) or (asks("time", s) and asks("cost", s))


def asks_runs_and_users(text: str) -> bool:
    """Whether `text` asks in one clause whether it runs and in another how many users it serves ("8 张 H20 能跑满血
    R1 吗？并发能到多少？", "Can 2x H100 run it, and how many users can it serve?"); "how many users can one H100
    handle?" is one question, the users."""
    clauses = [c for c in re.split(r"[?？,，;；。!！]|\band\b", (text or "").lower()) if c.strip()]
    return (any(asks_feasible(c) and not asks("users", c) for c in clauses)
            and any(asks("users", c) for c in clauses))


def asks_feasible(text: str) -> bool:
    """Whether `text` asks whether the job can be done at all ("能不能", "can we", "will one L40S do it", "can MI355X
    run …"), beside whatever else it asks (a time, a price)."""
    s = (text or "").lower()
    return bool(_FEASIBLE.search(s) or _CAN_CARD_RUN.search(s))


# "can MI355X run Llama 4 Maverick …", "could 2x H100 serve it": a yes/no question with the card as its subject
_CAN_CARD_RUN = re.compile(r"(?:^|[.?!;,]\s*)(?:can|could|will|would|does|do)\s+(?:\S+\s+){1,3}?"
                           r"(?:run|handle|serve|hold|fit|train|fine[\s-]?tune|do)\b")


def rate_period(text: str) -> int:
    """Seconds in the period a request-rate question counts in: 60 for "requests per minute", 3600 per hour, 86400
    per day, else 1 (per second)."""
    s = (text or "").lower()
    return next((period for pattern, period in _RATE_PERIOD if pattern.search(s)), 1)


# "which is faster, vLLM or llama.cpp?", "Ollama 和 vLLM 哪个快": serving engines named to be compared; _COMPARED: the
# words that make two engines, frameworks or TP degrees named a comparison ("vs", "switch from", "还是", "换成")
_ENGINE_NAMES = (("vllm", r"vllm"), ("llama.cpp", r"llama\.?cpp|ollama|lm studio"), ("sglang", r"sglang"),
                 ("trtllm", r"tensorrt[\s_-]*llm|trt[\s_-]*llm"), ("transformers", r"(?<![a-z])transformers(?![a-z])"))
_COMPARED = re.compile(r"(?<![a-z])(?:vs\.?|versus|or|faster|slower|quicker|better|compare[ds]?|comparison|"
                             r"switch(?:ing|ed)?|mov(?:e|ing)|migrat(?:e|ing|ion)|instead|rather than|replac(?:e|ing)|swap(?:ping)?|trad(?:e|ing)|"
                             r"gains?|difference|differ)(?![a-z])|哪个|还是|对比|比较|更快|谁|快还是|换成|换到|改用|更好|更高|"
                             r"切换|迁移|替换|区别|差多少|提升多少")


# the training frameworks the planner models (calibration planner.training_engines), as people name them
_TRAINING_FRAMEWORKS = (("megatron", r"megatron|nemo(?![a-z])"), ("fsdp", r"(?<![a-z])fsdp2?(?![a-z])|torchtitan"),
                        ("deepspeed", r"deepspeed|zero[\s-]?3"))
_FRAMEWORK_QUESTION = re.compile(r"which (?:training )?(?:framework|stack|library)|what (?:training )?(?:framework|stack)|"
                                 r"哪个框架|用什么框架|框架选|训练框架")


def training_frameworks_compared(text: str) -> tuple[str, ...]:
    """The training frameworks a message compares ("Megatron vs FSDP vs DeepSpeed for a 70B?", "which framework?"):
    those named, in order, when two or more are named with a comparison, or all three for "which framework";
    () otherwise."""
    s = (text or "").lower()
    found = sorted((m.start(), name) for name, rx in _TRAINING_FRAMEWORKS if (m := re.search(rx, s)))
    named = tuple(dict.fromkeys(n for _, n in found))
    if len(named) >= 2 and (_COMPARED.search(s) or _FRAMEWORK_QUESTION.search(s) or "," in s or "/" in s):
        return named
    return tuple(n for n, _ in _TRAINING_FRAMEWORKS) if _FRAMEWORK_QUESTION.search(s) else ()


_TP_SAID = re.compile(r"(?<![a-z])(?:tp|tensor[\s-]*parallel(?:ism)?|张量并行)\s*(?:=|:|of|degree|为|是)?\s*(?P<n>\d{1,2})"
                      r"(?![\d.])")


def tp_degrees_said(text: str) -> tuple[int, ...]:
    """The distinct TP degrees the message names, in order ("TP 8 … TP 4": (8, 4))."""
    s = (text or "").lower()
    return tuple(dict.fromkeys(int(m.group("n")) for m in _TP_SAID.finditer(s) if int(m.group("n")) >= 1))


def tp_degrees_compared(text: str) -> tuple[int, ...]:
    """Two or more TP degrees named with a comparison ("TP8 on 8 H100 or 2 replicas of TP4?", "TP 8 还是两组 TP 4"),
    in the order named; () otherwise."""
    found = tp_degrees_said(text)
    return found if len(found) >= 2 and _COMPARED.search((text or "").lower()) else ()


def engines_compared(text: str) -> tuple[str, ...]:
    """The serving engines the message compares ("Is vLLM or llama.cpp faster …?"), in the order named; () when
    fewer than two are named or nothing compares them (Ollama and LM Studio run llama.cpp)."""
    s = (text or "").lower()
    found = sorted((m.start(), engine) for engine, rx in _ENGINE_NAMES if (m := re.search(rx, s)))
    engines = tuple(dict.fromkeys(e for _, e in found))
    return engines if len(engines) >= 2 and _COMPARED.search(s) else ()


# preference tuning that keeps a frozen reference model beside the policy (TRL DPOTrainer, KTOTrainer)
_REFERENCE_METHOD = re.compile(r"(?<![a-z])(dpo|kto|ipo)(?![a-z])")
# online reinforcement learning: each step also generates rollouts with the policy (TRL GRPOTrainer, PPOTrainer)
_RL_METHOD = re.compile(r"(?<![a-z])(grpo|ppo|rloo|dapo)(?![a-z])")  # the algorithm, before the family word
_RL_FAMILY = re.compile(r"(?<![a-z])(rlhf)(?![a-z])|(强化学习|reinforcement[\s-]*learning)")
RL_METHODS = ("GRPO", "PPO", "RLOO", "DAPO", "RLHF", "RL")


def reference_method(text: str) -> str:
    """"DPO training Llama 3.1 8B …": the preference method named whose loss needs a frozen reference model
    ("DPO", "KTO", "IPO"), or an online RL method whose rollouts the sizing leaves out (`RL_METHODS`), else ""."""
    s = (text or "").lower()
    rl = _RL_METHOD.search(s) or _RL_FAMILY.search(s)  # "RLHF with PPO": PPO
    if rl:  # online RL is named first: its rollouts are what the sizing leaves out ("GRPO", "强化学习" -> "RL")
        return rl.group(1).upper() if rl.group(1) else "RL"
    m = _REFERENCE_METHOD.search(s)
    return m.group(1).upper() if m else ""
